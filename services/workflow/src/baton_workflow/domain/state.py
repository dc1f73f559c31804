"""An instance's state and the pure fold that builds it from its log."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from baton_workflow.domain.commands import Signal
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceCompleted,
    InstanceStarted,
    SignalReceived,
    StepBlocked,
    StepChanged,
    WidgetCompleted,
)

Outcome = Literal["transitioned", "stayed", "blocked", "forced", "completed"]


class InstanceState(BaseModel):
    """Seed 000 §5 context plus status, counters and the outcome of every handled command."""

    model_config = ConfigDict(frozen=True)

    instance_id: str
    workflow_id: str
    user_id: str
    status: Literal["active", "completed"] = "active"
    current_step: str
    started_at: datetime
    completed_at: datetime | None = None
    steps_completed: tuple[str, ...] = ()
    step_data: dict[str, dict[str, Any]] = Field(default_factory=dict)
    shared: dict[str, Any] = Field(default_factory=dict)
    messages_in_step: int = 0
    last_signal: str | None = None
    outcomes: dict[str, Outcome] = Field(default_factory=dict)
    version: int = 0

    def context(self) -> dict[str, Any]:
        """The workflow context as seed 000 §5 shows it, handed to each step's agent."""
        return {
            "workflow_id": self.workflow_id,
            "current_step": self.current_step,
            "started_at": self.started_at.isoformat(),
            "steps_completed": list(self.steps_completed),
            "step_data": self.step_data,
            "shared": self.shared,
        }


def _merge(
    data: dict[str, dict[str, Any]], step: str, values: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    # `values` as one mapping, not keywords: a signal's data may hold any key, `step` too.
    return {**data, step: {**data.get(step, {}), **values}}


def _start(event: InstanceStarted) -> InstanceState:
    return InstanceState(
        instance_id=event.instance_id,
        workflow_id=event.workflow_id,
        user_id=event.user_id,
        current_step=event.first_step,
        started_at=event.at,
        step_data={event.first_step: {"started_at": event.at.isoformat()}},
        version=1,
    )


def apply(state: InstanceState | None, event: DomainEvent) -> InstanceState:
    """The state after one event; records facts, never re-checks rules."""
    if isinstance(event, InstanceStarted):
        return _start(event)
    if state is None:
        raise ValueError(f"{event.type} cannot come before workflow.instance_started")
    return _apply_to(state, event, state.version + 1)


def _apply_to(state: InstanceState, event: DomainEvent, version: int) -> InstanceState:
    # One copy per event, the version in it: a second copy for the version alone cost each
    # transition two more model copies on the workflow service's one busy thread.
    match event:
        case ExchangeRecorded():
            data = _merge(state.step_data, event.step, {"messages": event.messages_in_step})
            # One on a step the instance has left (`decide._late_exchange`) counts there only.
            here = event.step == state.current_step
            return state.model_copy(
                update={
                    "messages_in_step": event.messages_in_step if here else state.messages_in_step,
                    "step_data": data,
                    "outcomes": {**state.outcomes, event.command_id: "stayed"},
                    "version": version,
                }
            )
        case SignalReceived():
            return state.model_copy(
                update={
                    "last_signal": event.action,
                    "step_data": _merge(state.step_data, event.step, event.data),
                    "shared": {**state.shared, **event.shared},
                    "outcomes": {**state.outcomes, event.command_id: "stayed"},
                    "version": version,
                }
            )
        case StepBlocked():
            return state.model_copy(
                update={
                    "outcomes": {**state.outcomes, event.command_id: "blocked"},
                    "version": version,
                }
            )
        case WidgetCompleted():  # the step's data holds the widget already
            return state.model_copy(update={"version": version})
        case StepChanged():
            return _change_step(state, event, version)
        case InstanceCompleted():
            data = _merge(state.step_data, event.final_step, {"completed_at": event.at.isoformat()})
            if event.forced:
                data = _merge(data, event.final_step, {"forced": True, "warning": event.warning})
            return state.model_copy(
                update={
                    "status": "completed",
                    "completed_at": event.at,
                    "steps_completed": (*state.steps_completed, event.final_step),
                    "step_data": data,
                    "outcomes": {**state.outcomes, event.command_id: "completed"},
                    "version": version,
                }
            )
    raise ValueError(f"unknown workflow event type {event.type!r}")


def _change_step(state: InstanceState, event: StepChanged, version: int) -> InstanceState:
    data = _merge(state.step_data, event.previous_step, {"completed_at": event.at.isoformat()})
    if event.forced:
        data = _merge(data, event.previous_step, {"forced": True, "warning": event.warning})
    data = _merge(data, event.current_step, {"started_at": event.at.isoformat()})
    outcome: Outcome = "forced" if event.forced else "transitioned"
    return state.model_copy(
        update={
            "current_step": event.current_step,
            "steps_completed": (*state.steps_completed, event.previous_step),
            "step_data": data,
            "messages_in_step": 0,
            "last_signal": None,
            "outcomes": {**state.outcomes, event.command_id: outcome},
            "version": version,
        }
    )


def with_signal(state: InstanceState, signal: Signal) -> InstanceState:
    """The state as checkers should see it: with the signal's data already merged."""
    return state.model_copy(
        update={
            "step_data": _merge(state.step_data, state.current_step, signal.data),
            "shared": {**state.shared, **signal.shared},
        }
    )


def fold(events: Iterable[DomainEvent], state: InstanceState | None = None) -> InstanceState | None:
    """Reduce a log (or its tail, from a cached state) to the current state.

    Each event is applied with no outcomes (no event reads them), and the outcomes are
    gathered in one dict: `apply` copies them per event, which made a cold load of an
    instance of n commands cost O(n^2) (40,000 signals: 6 s of CPU, the loop blocked)."""
    if state is None:
        outcomes: dict[str, Outcome] = {}
    else:
        outcomes = dict(state.outcomes)
    empty: dict[str, Outcome] = {}
    for event in events:
        before = None if state is None else state.model_copy(update={"outcomes": empty})
        state = apply(before, event)
        if state.outcomes:
            outcomes.update(state.outcomes)
    if state is None:
        return None
    return state.model_copy(update={"outcomes": outcomes})
