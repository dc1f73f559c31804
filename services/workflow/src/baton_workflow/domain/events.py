"""Facts recorded in an instance's log. Type strings are stored and never renamed."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Fact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    at: datetime


class InstanceStarted(_Fact):
    """A user started an instance of a workflow; it stands on the first step."""

    type: Literal["workflow.instance_started"] = "workflow.instance_started"
    instance_id: str
    workflow_id: str
    user_id: str
    first_step: str


class ExchangeRecorded(_Fact):
    """One user/agent exchange happened on a step; a chat turn also keeps both texts."""

    type: Literal["workflow.exchange_recorded"] = "workflow.exchange_recorded"
    command_id: str
    step: str
    messages_in_step: int
    user_text: str | None = None
    agent_text: str | None = None
    agent: str | None = None


class SignalReceived(_Fact):
    """An agent (or a person, by hand) signalled about the current step."""

    type: Literal["workflow.signal_received"] = "workflow.signal_received"
    command_id: str
    step: str
    action: str
    source: Literal["agent", "manual"]
    data: dict[str, Any] = Field(default_factory=dict)
    shared: dict[str, Any] = Field(default_factory=dict)
    target_step: str | None = None
    """The step the signal asked to move to, part of what a retry must repeat; stored only
    when set, so that a replica of an earlier version still reads the event."""


class StepBlocked(_Fact):
    """A move past the step was refused; the step stays where it is."""

    type: Literal["workflow.step_blocked"] = "workflow.step_blocked"
    command_id: str
    step: str
    reason: str
    missing_criteria: list[str]


class WidgetCompleted(_Fact):
    """The step closed holding a completed widget; `items` are its items as the step closed on
    them (the step's data keeps the widget itself)."""

    type: Literal["workflow.widget_completed"] = "workflow.widget_completed"
    command_id: str
    step: str
    widget_type: str
    items: list[str] = Field(default_factory=list)


class StepChanged(_Fact):
    """The instance left `previous_step` for `current_step` (`forced` at max_messages)."""

    type: Literal["workflow.step_changed"] = "workflow.step_changed"
    command_id: str
    previous_step: str
    current_step: str
    forced: bool = False
    warning: str | None = None
    missing_criteria: list[str] = Field(default_factory=list)


class InstanceCompleted(_Fact):
    """The final step closed; the instance is done."""

    type: Literal["workflow.instance_completed"] = "workflow.instance_completed"
    command_id: str
    final_step: str
    forced: bool = False
    warning: str | None = None
    missing_criteria: list[str] = Field(default_factory=list)
    summary: dict[str, Any] = Field(default_factory=dict)


DomainEvent = Annotated[
    InstanceStarted
    | ExchangeRecorded
    | SignalReceived
    | StepBlocked
    | WidgetCompleted
    | StepChanged
    | InstanceCompleted,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[DomainEvent] = TypeAdapter(DomainEvent)


def event_from_record(type_name: str, payload: dict[str, Any]) -> DomainEvent:
    """Rebuild a domain event from what the store kept (raises on an unknown type)."""
    return _ADAPTER.validate_python({**payload, "type": type_name})


def event_payload(event: DomainEvent) -> dict[str, Any]:
    """What the store keeps for an event: its fields as JSON-ready data (a field added later
    left out while it holds nothing: every event reads the same, and earlier versions read it)."""
    payload = event.model_dump(mode="json")
    if isinstance(event, SignalReceived) and event.target_step is None:
        del payload["target_step"]
    return payload
