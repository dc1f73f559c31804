"""What one turn of a scripted onboarding agent reads (`Turn`) and answers (`Reply`), and
what its rules read from the conversation so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.output import AgentOutput, Signal
from baton_agent_runner.domain.texts import in_every_language


class Turn(BaseModel):
    """Everything a turn's rules may look at; the service fills it, the prompt carries it."""

    model_config = ConfigDict(extra="ignore")

    agent: str
    current_step: str
    message: str
    history: list[dict[str, str]] = Field(default_factory=list)
    can_complete: bool = False
    step_required: bool = True
    """Whether the step must be finished (the definition's `is_required`); an optional one
    may be skipped."""
    facts: dict[str, str] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)
    """Discovery's answers to its follow-up questions, by question (`SITUATION` facts)."""
    inbox_count: int = 0
    inbox_open: list[str] = Field(default_factory=list)
    """The contents of the open items (new or deferred) of the turn's workflow instance, the
    turn's own left out: an item the user says again is one of these, and is not saved again."""
    promoted: list[str] = Field(default_factory=list)
    inbox_ahead: bool = True
    """Whether a step still ahead in the workflow takes deferred items into the inbox as it
    starts; when none does, an inbox request is saved at once, not deferred for ever."""
    language: lang.Lang = "en"
    messages_in_step: int | None = None
    """The step's messages before this one, as the workflow counts them (None: not told)."""
    min_messages: int | None = None
    """The messages the step needs before it may complete (None: not told)."""
    step: dict[str, Any] = Field(default_factory=dict)
    """The request's `step_context` as the workflow sent it: the step's title and limits, the
    workflow's context (what earlier steps found) and `last_block` after a refused completion.
    The prompt carries it, so a model-backed agent knows where the conversation stands."""


@dataclass
class Reply:
    """A rule's answer: its message, signal (`stay` or `complete_step`), reason and data."""

    message: str
    action: str = "stay"
    reason: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def output(self) -> AgentOutput:
        """The structured reply of seed 001 (component 7) and seed 000's signal."""
        done = self.action == "complete_step"
        return AgentOutput(
            message=self.message,
            step_completed=done,
            completion_reason=self.reason if done else None,
            extracted_data=self.data,
            next_action="transition" if done else "wait_for_input",
            workflow_signal=Signal(action=self.action, data=self.data),
        )


def last_reply(turn: Turn) -> str:
    """The agent's latest message in the history ("" when there is none)."""
    last = next((e for e in reversed(turn.history) if e.get("role") == "assistant"), None)
    return "" if last is None else last.get("text", "")


def last_reply_says(turn: Turn, *keys: str) -> bool:
    """Whether the agent's latest message holds one of the texts `keys`, in either language."""
    last = last_reply(turn)
    return any(said in last for said in in_every_language(*keys))


def next_agent(turn: Turn) -> str | None:
    """The agent of the step that follows this one (the workflow's `agents_ahead`), None at
    the last step or when the workflow does not say."""
    ahead = turn.step.get("agents_ahead")
    if isinstance(ahead, list) and ahead and isinstance(ahead[0], str):
        return ahead[0]
    return None
