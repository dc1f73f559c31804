"""Agent profiles: one YAML file per agent, read into the domain's `Profile`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import ValidationError

from baton_agent_runner.domain.profile import Profile, SystemPrompt
from baton_contracts.documents import yaml_loader
from baton_contracts.ids import PATTERN_MISMATCH
from baton_contracts.storable import format_path

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

__all__ = ["SHIPPED_PROFILES", "Profile", "ProfileInvalid", "SystemPrompt", "load_profiles"]

SHIPPED_PROFILES = Path(__file__).resolve().parent.parent / "profiles"


class ProfileInvalid(ValueError):
    """A profile file that cannot be used, with the file and the problem."""


def load_profiles(folder: Path) -> dict[str, Profile]:
    """Every `*.yaml` profile of `folder`, by slug; a bad file raises `ProfileInvalid`."""
    if not folder.is_dir():  # a glob of it finds nothing, which says nothing of why
        problem = "is not a folder" if folder.exists() else "does not exist"
        raise ProfileInvalid(f"{folder}: {problem}; BATON_AGENT_PROFILES_DIR names the folder")
    profiles: dict[str, Profile] = {}
    # A dotfile is never an author's profile: macOS leaves `._greeter.yaml` (binary metadata)
    # beside a copied file, Emacs `.#greeter.yaml` (a lock). Read as one, it would stop the
    # service.
    for path in sorted(p for p in _yaml_files(folder) if not p.name.startswith(".")):
        raw = _read(path)
        if not isinstance(raw, dict):  # pydantic would name its own class, not the mistake
            problem = (
                "the file is empty" if raw is None else f"a {type(raw).__name__}, not a mapping"
            )
            raise ProfileInvalid(f"{path}: document: {problem}; {_SHAPE}")
        try:
            profile = Profile.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(_problem(error) for error in exc.errors())
            raise ProfileInvalid(f"{path}: {problems}") from None
        if profile.slug in profiles:
            raise ProfileInvalid(f"{path}: slug {profile.slug!r} is defined twice")
        profiles[profile.slug] = profile
    if not profiles:
        raise ProfileInvalid(
            f"{folder}: no agent profiles (*.yaml, *.yml) found; files whose name starts with '.' "
            "are skipped"
        )
    return profiles


def _yaml_files(folder: Path) -> list[Path]:
    """Both spellings of YAML's suffix: `greeter.yml` alone was skipped without a word, and the
    agent it described answered `not_found` at its first turn."""
    return [*folder.glob("*.yaml"), *folder.glob("*.yml")]


_SHAPE = "a profile is a mapping with slug, role and system_prompt (en and ru)"


def _read(path: Path) -> object:
    """The file's YAML, or `ProfileInvalid` saying why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        raise ProfileInvalid(
            f"{path}: cannot be read: not UTF-8 text (byte {exc.start} is {byte:#04x})"
        ) from None
    except OSError as exc:  # a folder named `x.yaml`, a file the service may not read
        raise ProfileInvalid(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        # The documents' reader: a key given twice (`model:` added at the top, the shipped
        # `model: scripted` left below) is refused, where safe_load kept the last in silence.
        return yaml.load(text, Loader=yaml_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise ProfileInvalid(f"{path}: cannot be read: {problem}{where}") from None
    except ValueError as exc:  # `!!timestamp 2024-13-45`, a 5,000-digit number, too deep
        raise ProfileInvalid(f"{path}: cannot be read: {exc}") from None


def _problem(error: ErrorDetails) -> str:
    """`model: a model is ..., got 'gpt 4'`: the service stops on one line, so each problem
    names its field and, for a missed form, the value that missed it."""
    where = format_path(error["loc"]) or "document"
    if error["type"] in (PATTERN_MISMATCH, "literal_error"):
        return f"{where}: {error['msg']}, got {error['input']!r}"
    if error["type"] == "value_error":  # our own check: its message says it all
        return f"{where}: {error['msg'].removeprefix('Value error, ')}"
    return f"{where}: {error['msg']}"
