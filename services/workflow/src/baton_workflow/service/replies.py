"""What a turn answers, and which retry may be answered from the log."""

from __future__ import annotations

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.workflow_api import TurnReply
from baton_workflow.adapters.instances import Change
from baton_workflow.domain import commands as dc
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceCompleted,
    SignalReceived,
    StepBlocked,
    StepChanged,
)
from baton_workflow.domain.state import InstanceState


def turn_reply(
    command_id: str, events: list[DomainEvent], after: InstanceState, change: Change
) -> TurnReply:
    """The answer to a turn: its outcome, and what blocked or moved the step."""
    moved: dict[str, object] = {}
    for event in events:
        if getattr(event, "command_id", None) != command_id:
            continue
        if isinstance(event, StepBlocked):
            moved |= {"reason": event.reason, "missing_criteria": event.missing_criteria}
        elif isinstance(event, StepChanged):
            moved |= {
                "previous_step": event.previous_step,
                "warning": event.warning,
                "missing_criteria": event.missing_criteria,
            }
        elif isinstance(event, InstanceCompleted):
            moved |= {
                "previous_step": event.final_step,
                "warning": event.warning,
                "missing_criteria": event.missing_criteria,
            }
    # One model, built once: a copy per event cost every transition a model copy more.
    outcome = after.outcomes.get(command_id, "stayed")
    return TurnReply.model_validate({"outcome": outcome, "instance": change.view, **moved})


def require_same_command(
    events: list[DomainEvent], command: dc.SendSignal | dc.RecordExchange
) -> None:
    """A retry repeats its command; another command under a used `command_id` is refused.

    Answered with the first command's outcome, the second would be dropped unseen (a signal
    sent by hand under an exchange's id was never applied, yet got a reply). The log tells
    the two apart: an exchange records `ExchangeRecorded`, a signal its `SignalReceived`.
    """
    mine = [e for e in events if getattr(e, "command_id", None) == command.command_id]
    exchanged = any(isinstance(e, ExchangeRecorded) for e in mine)
    received = next((e for e in mine if isinstance(e, SignalReceived)), None)
    sent = command.signal
    same_signal = (received is None and sent is None) or (
        received is not None
        and sent is not None
        and (received.action, received.data, received.shared, received.target_step)
        == (sent.action, sent.data, sent.shared, sent.target_step)
    )
    if exchanged != isinstance(command, dc.RecordExchange) or not same_signal:
        chat = any(isinstance(e, ExchangeRecorded) and e.user_text is not None for e in mine)
        if chat and isinstance(command, dc.SendSignal):
            # The user sent no command under it, but a chat message: say so, and why it counts.
            what = (
                "a chat message's client_message_id (an instance's signals and messages share "
                "their ids)"
            )
        else:
            what = "a different command"
        raise RemoteError.of(
            ErrorCode.CONFLICT,
            f"command_id {command.command_id!r} was already used for {what}; "
            "send a new command with a new id",
            [ErrorDetail(field="command_id", message=f"already used for {what}")],
        )
