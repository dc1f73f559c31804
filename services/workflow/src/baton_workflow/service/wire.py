"""Which domain events go out on NATS, and as which contract messages."""

from __future__ import annotations

from uuid import UUID

from baton_contracts import Event as WireEvent
from baton_contracts.workflow import MessagesExchanged, WorkflowCompleted, WorkflowStarted
from baton_contracts.workflow import StepBlocked as WireStepBlocked
from baton_contracts.workflow import StepChanged as WireStepChanged
from baton_contracts.workflow import WidgetCompleted as WireWidgetCompleted
from baton_workflow.domain.decide import progress
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceCompleted,
    InstanceStarted,
    StepBlocked,
    StepChanged,
    WidgetCompleted,
)
from baton_workflow.domain.state import InstanceState


def to_wire(
    event: DomainEvent, after: InstanceState, definition: WorkflowDefinition, event_id: UUID
) -> WireEvent | None:
    """The contract event announcing `event` (None for events kept to the log)."""
    common = {
        "event_id": event_id,
        "occurred_at": event.at,
        "user_id": after.user_id,
        "workflow_id": after.workflow_id,
        "instance_id": after.instance_id,
    }
    match event:
        case InstanceStarted():
            return WorkflowStarted(
                **common,
                initial_step=event.first_step,
                initial_agent=definition.step(event.first_step).agent_slug,
            )
        case StepChanged():
            return WireStepChanged(
                **common,
                previous_step=event.previous_step,
                current_step=event.current_step,
                progress=progress(after, definition),
                forced=event.forced,
                warning=event.warning,
                current_agent=definition.step(event.current_step).agent_slug,
            )
        case StepBlocked():
            return WireStepBlocked(
                **common,
                current_step=event.step,
                reason=event.reason,
                missing_criteria=event.missing_criteria,
            )
        case WidgetCompleted():
            return WireWidgetCompleted(
                **common, step=event.step, widget_type=event.widget_type, items=event.items
            )
        case InstanceCompleted():
            return WorkflowCompleted(
                **common,
                completed_at=event.at,
                summary=event.summary,
                forced=event.forced,
                warning=event.warning,
            )
        case ExchangeRecorded(user_text=str(user_text), agent_text=str(agent_text)):
            return MessagesExchanged(
                **common,
                step=event.step,
                agent=event.agent or "",
                client_message_id=event.command_id,
                user_text=user_text,
                agent_text=agent_text,
            )
    return None
