"""Use cases: each loads, folds, decides, appends and commits; conflicts reload and retry.

Starting an instance, and taking a signal or an exchange: checked as it comes in
(`signal_requests`), then decided and appended as every turn is (`turns`)."""

from __future__ import annotations

from datetime import datetime

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.workflow_api import (
    RecordExchange,
    SignalWorkflow,
    StartReply,
    StartWorkflow,
    TurnReply,
)
from baton_workflow.adapters.instances import ActiveInstanceExists
from baton_workflow.domain import commands as dc
from baton_workflow.domain.decide import decide
from baton_workflow.service.replies import require_same_command
from baton_workflow.service.signal_requests import (
    agents_data_kept,
    check_data,
    check_widget,
    domain_command,
)
from baton_workflow.service.turns import TurnTime, change_of, commit_turn, instance_locked
from baton_workflow.service.workflow_services import WorkflowServices
from baton_workflow.service.write_deadlines import not_written_in_time


async def start_workflow(svc: WorkflowServices, cmd: StartWorkflow) -> StartReply:
    """Start an instance, or return the user's active one of the same workflow."""
    definition = svc.definition(cmd.workflow_id)
    existing = await svc.repo.find_active(cmd.user_id, cmd.workflow_id)
    if existing is not None:
        return StartReply(created=False, instance=existing)
    start = dc.StartInstance(
        instance_id=str(svc.new_id()), workflow_id=definition.id, user_id=cmd.user_id
    )
    now = svc.clock.now()
    events = decide(None, start, definition, now)
    change, _ = change_of(svc, None, events, definition)
    try:
        await svc.repo.save(0, change)
    except ActiveInstanceExists:  # a concurrent start won; answer with its instance
        winner = await svc.repo.find_active(cmd.user_id, cmd.workflow_id)
        if winner is None:
            raise RemoteError.of(ErrorCode.CONFLICT, "instance is starting; try again") from None
        return StartReply(created=False, instance=winner)
    svc.notify()
    return StartReply(created=True, instance=change.view)


SIGNAL_QUEUED_TOO_LONG = (
    "another message or signal to this instance was still being handled; nothing was "
    "recorded: send it again"
)
SIGNAL_OUT_OF_TIME = (
    "other messages or signals to this instance kept being recorded first until this "
    "signal's time ran out; nothing was recorded: send it again"
)
SIGNAL_NOT_WRITTEN_IN_TIME = not_written_in_time("signal", "nothing was recorded")
SIGNAL_CHECKED_TOO_LATE = (
    "checking step {step!r}'s completion criteria took {seconds:.1f}s, until this signal's "
    "time ran out; nothing was recorded: send it again"
)
SIGNAL_COULD_NOT_CHECK = (
    "could not check whether step {step!r} can close ({causes}); nothing was recorded: "
    "send it again"
)


def signal_time(deadline: datetime | None, caller_start_by: datetime | None = None) -> TurnTime:
    """A signal's time: its append starts by its deadline too (the gateway's 503 comes after
    it, with a database statement's time to spare). Brought forward to `caller_start_by` (its
    caller's deadline less the append's and the answer's time), when that comes first: a
    signal the gateway sent again while this service restarted arrives with less of its
    caller's time left."""
    if caller_start_by is not None:
        deadline = caller_start_by if deadline is None else min(deadline, caller_start_by)
    return TurnTime(
        deadline=deadline,
        start_by=deadline,
        queued_too_long=SIGNAL_QUEUED_TOO_LONG,
        out_of_time=SIGNAL_OUT_OF_TIME,
        not_written_in_time=SIGNAL_NOT_WRITTEN_IN_TIME,
        checked_too_late=SIGNAL_CHECKED_TOO_LATE,
        could_not_check=SIGNAL_COULD_NOT_CHECK,
    )


async def take_turn(svc: WorkflowServices, cmd: SignalWorkflow | RecordExchange) -> TurnReply:
    """Apply a signal or an exchange; the same command_id twice gives the same answer once."""
    # Its time runs from its arrival, as a chat turn's does: behind a slow turn of the
    # instance, it waited for the instance after its caller had given up, and was recorded.
    caller = svc.writes.caller_start_by(cmd.deadline) if isinstance(cmd, SignalWorkflow) else None
    time = signal_time(svc.deadline(svc.signal_timeout), caller)
    if isinstance(cmd, RecordExchange):
        cmd = agents_data_kept(cmd)
    check_data(cmd.signal)
    if isinstance(cmd, SignalWorkflow):
        check_widget(cmd.signal)
    command = domain_command(cmd)
    async with instance_locked(svc, cmd.instance_id, time):
        # Its append starts by the deadline too, or not at all: one that waited for a free
        # database writer past it ended after the gateway had answered 503.
        reply, replayed = await commit_turn(
            svc, cmd.instance_id, cmd.user_id, lambda _: command, time
        )
    if replayed is not None:
        require_same_command(replayed.events, command)
    return reply
