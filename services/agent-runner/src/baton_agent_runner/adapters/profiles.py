"""Agent profiles: one YAML file per agent (slug, role, prompts, model, sampling, tools)."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

SHIPPED_PROFILES = Path(__file__).resolve().parent.parent / "profiles"


class SystemPrompt(BaseModel):
    """The agent's instructions in both languages the platform speaks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    en: str = Field(min_length=1)
    ru: str = Field(min_length=1)


class Profile(BaseModel):
    """How one agent is configured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    slug: str = Field(pattern=r"^[a-z0-9_\-]+$")
    role: str
    system_prompt: SystemPrompt
    model: str = "scripted"
    temperature: float = Field(default=0.3, ge=0, le=2)
    max_tokens: int = Field(default=800, gt=0)
    tools: list[str] = Field(default_factory=list)
    input_usd_per_mtok: float = Field(default=0.0, ge=0)
    output_usd_per_mtok: float = Field(default=0.0, ge=0)


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
