"""How one agent is configured: its role, prompts, model, sampling, tools and prices."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

StepStartAction = Literal["promote_deferred_inbox"]
"""What the agent-runner does when a workflow step served by the agent starts:
`promote_deferred_inbox` moves the user's deferred inbox items into the inbox (and the agent's
next turn mentions them)."""
PROMOTE_DEFERRED_INBOX: StepStartAction = "promote_deferred_inbox"

MODEL_NAME = r"^(scripted|openai:\S+)$"
"""A model the agent-runner can build: the offline `scripted` one, or `openai:<model>` at the
OpenAI-compatible endpoint. Checked when profiles and settings load, not on the first turn."""


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
    model: str = Field(default="scripted", pattern=MODEL_NAME)
    temperature: float = Field(default=0.3, ge=0, le=2)
    max_tokens: int = Field(default=800, gt=0)
    tools: list[str] = Field(default_factory=list)
    on_step_start: list[StepStartAction] = Field(default_factory=list)
    input_usd_per_mtok: float = Field(default=0.0, ge=0)
    output_usd_per_mtok: float = Field(default=0.0, ge=0)
