"""Agent profiles: one YAML file per agent, read into the domain's `Profile`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import ValidationError

from baton_agent_runner.domain.profile import Profile, SystemPrompt
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
    profiles: dict[str, Profile] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            profile = Profile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except ValidationError as exc:
            problems = "; ".join(_problem(error) for error in exc.errors())
            raise ProfileInvalid(f"{path}: {problems}") from None
        except yaml.YAMLError as exc:
            raise ProfileInvalid(f"{path}: cannot be read: {' '.join(str(exc).split())}") from None
        if profile.slug in profiles:
            raise ProfileInvalid(f"{path}: slug {profile.slug!r} is defined twice")
        profiles[profile.slug] = profile
    if not profiles:
        raise ProfileInvalid(f"{folder}: no agent profiles (*.yaml) found")
    return profiles


def _problem(error: ErrorDetails) -> str:
    """`model: a model is ..., got 'gpt 4'`: the service stops on one line, so each problem
    names its field and, for a missed form, the value that missed it."""
    where = format_path(error["loc"]) or "document"
    if error["type"] == PATTERN_MISMATCH:
        return f"{where}: {error['msg']}, got {error['input']!r}"
    return f"{where}: {error['msg']}"
