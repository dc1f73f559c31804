"""How one agent is configured: its role, prompts, model, sampling, tools and prices."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from baton_contracts.agent_api import AgentSlug
from baton_contracts.ids import in_words
from baton_contracts.storable import NonBlankText

StepStartAction = Literal["promote_deferred_inbox"]
"""What the agent-runner does when a workflow step served by the agent starts:
`promote_deferred_inbox` moves the user's deferred inbox items into the inbox (and the agent's
next turn mentions them)."""
PROMOTE_DEFERRED_INBOX: StepStartAction = "promote_deferred_inbox"

ToolName = Literal["recall_facts", "inbox_summary"]
"""A tool the profile's agent may call during a conversation turn (`adapters.agent_tools`):
`recall_facts` (the user's long-term facts nearest to a query) and `inbox_summary` (how many
inbox items the user has, and the newest). Both only read; the scripted model calls none."""


def _each_once(tools: list[ToolName]) -> list[ToolName]:
    twice = sorted({tool for tool in tools if tools.count(tool) > 1})
    if twice:
        raise ValueError(f"{', '.join(repr(t) for t in twice)} listed more than once")
    return tools


MODEL_NAME = r"^(scripted|openai:\S+)$"
"""A model the agent-runner can build: the offline `scripted` one, or `openai:<model>` at the
OpenAI-compatible endpoint. Checked when profiles and settings load, not on the first turn."""
ModelName = Annotated[
    str,
    StringConstraints(pattern=MODEL_NAME),
    in_words("a model is 'scripted' or 'openai:<model>' (openai:gpt-4o-mini), with no spaces"),
]
"""A model name whose refusal says the two forms in words, for a profile and for the setting."""


class SystemPrompt(BaseModel):
    """The agent's instructions in both languages the platform speaks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # `en: "  "` (or a `|` block left empty but for a space) loaded, and the agent ran with
    # no instructions at all in that language.
    en: NonBlankText = Field(min_length=1)
    ru: NonBlankText = Field(min_length=1)


class Profile(BaseModel):
    """How one agent is configured."""

    # YAML spells `.inf` and `.nan`: an infinite price passed `ge=0` and made every turn's
    # `cost_usd` infinite (sent as null, so the workflow could not read the reply), and a NaN
    # temperature was refused as "less than or equal to 2".
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    # The slug `agent.cmd.run` and a workflow step carry: a longer one loaded, but no turn
    # could ever name it.
    slug: AgentSlug
    role: str
    system_prompt: SystemPrompt
    model: ModelName = "scripted"
    # Strict: YAML reads `yes`, `on` and `true` as a boolean, which pydantic took for 1 (a
    # max_tokens of one token, a temperature of 1.0) without a word. An int stays a float.
    temperature: float = Field(default=0.3, ge=0, le=2, strict=True)
    max_tokens: int = Field(default=800, gt=0, strict=True)
    tools: Annotated[list[ToolName], AfterValidator(_each_once)] = Field(default_factory=list)
    on_step_start: list[StepStartAction] = Field(default_factory=list)
    input_usd_per_mtok: float = Field(default=0.0, ge=0, strict=True)
    output_usd_per_mtok: float = Field(default=0.0, ge=0, strict=True)
