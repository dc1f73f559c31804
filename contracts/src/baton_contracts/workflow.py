"""Events the workflow service publishes about conversation workflow instances (seed 000 §6)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import Field

from baton_contracts.base import Event, Kind, Subject


def _evt(name: str) -> Subject:
    # user_id first so a gateway can listen to one user's events with one wildcard.
    return Subject(owner="workflow", kind=Kind.EVT, name=name, keys=("user_id", "instance_id"))


class WorkflowStarted(Event):
    """An instance of a workflow was started for a user."""

    type: Literal["workflow.started"] = "workflow.started"
    subject: ClassVar[Subject] = _evt("started")

    workflow_id: str
    instance_id: str
    initial_step: str


class StepChanged(Event):
    """The instance moved from one step to the next (`forced` when `max_messages` moved it)."""

    type: Literal["workflow.step_changed"] = "workflow.step_changed"
    subject: ClassVar[Subject] = _evt("step_changed")

    workflow_id: str
    instance_id: str
    previous_step: str
    current_step: str
    progress: float = Field(ge=0.0, le=1.0)
    forced: bool = False
    warning: str | None = None


class StepBlocked(Event):
    """A move past the current step was refused; `missing_criteria` says what is lacking."""

    type: Literal["workflow.step_blocked"] = "workflow.step_blocked"
    subject: ClassVar[Subject] = _evt("step_blocked")

    workflow_id: str
    instance_id: str
    current_step: str
    reason: str
    missing_criteria: list[str] = Field(default_factory=list)


class WorkflowCompleted(Event):
    """The instance reached its final step."""

    type: Literal["workflow.completed"] = "workflow.completed"
    subject: ClassVar[Subject] = _evt("completed")

    workflow_id: str
    instance_id: str
    completed_at: datetime
    summary: dict[str, Any] = Field(default_factory=dict)


class MessagesExchanged(Event):
    """A user message and the agent's reply to it were recorded on a step (the chat, live)."""

    type: Literal["workflow.messages_exchanged"] = "workflow.messages_exchanged"
    subject: ClassVar[Subject] = _evt("messages_exchanged")

    workflow_id: str
    instance_id: str
    step: str
    agent: str
    client_message_id: str
    user_text: str
    agent_text: str


WORKFLOW_EVENTS = (WorkflowStarted, StepChanged, StepBlocked, WorkflowCompleted, MessagesExchanged)
