"""Agent profiles: one YAML file per agent, read into the domain's `Profile`."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from baton_agent_runner.domain.profile import Profile, SystemPrompt

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
        except (ValidationError, yaml.YAMLError) as exc:
            raise ProfileInvalid(f"{path}: {exc}") from exc
        if profile.slug in profiles:
            raise ProfileInvalid(f"{path}: slug {profile.slug!r} is defined twice")
        profiles[profile.slug] = profile
    if not profiles:
        raise ProfileInvalid(f"{folder}: no agent profiles (*.yaml) found")
    return profiles
