"""What can be asked of an instance. Each carries a `command_id`, so a retry counts once."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SignalAction = Literal["complete_step", "stay", "need_input"]


class Signal(BaseModel):
    """Seed 000's `workflow_signal`: what the agent (or a person) says about the step."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: SignalAction = "stay"
    data: dict[str, Any] = Field(default_factory=dict)
    shared: dict[str, Any] = Field(default_factory=dict)
    target_step: str | None = None


class StartInstance(BaseModel):
    """Start an instance of a workflow for a user."""

    model_config = ConfigDict(frozen=True)

    instance_id: str
    workflow_id: str
    user_id: str


class RecordExchange(BaseModel):
    """One user/agent exchange on the current step; `signal` is the agent's, if it sent one.

    A chat turn carries the user's and the agent's texts, which the log keeps.
    """

    model_config = ConfigDict(frozen=True)

    command_id: str
    signal: Signal | None = None
    user_text: str | None = None
    agent_text: str | None = None
    agent: str | None = None
    step: str | None = None
    """The step the agent answered on (a chat turn); None: the current one. If the instance
    left it meanwhile (another replica moved it), the exchange is kept on that step and counts
    toward no other."""


class SendSignal(BaseModel):
    """A signal by hand (API or test); it counts as the agent's signal for the current step."""

    model_config = ConfigDict(frozen=True)

    command_id: str
    signal: Signal


Command = StartInstance | RecordExchange | SendSignal
