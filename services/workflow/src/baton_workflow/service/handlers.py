"""Use cases: each loads, folds, decides, appends and commits; conflicts reload and retry."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.workflow_api import (
    RecordExchange,
    SignalWorkflow,
    StartReply,
    StartWorkflow,
    TurnReply,
)
from baton_eventstore import ConcurrencyConflict, StartByPassed
from baton_workflow.adapters.instances import (
    ActiveInstanceExists,
    Change,
    LoadedInstance,
)
from baton_workflow.domain import commands as dc
from baton_workflow.domain.decide import decide, needs_criteria
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.errors import InstanceNotActive, UnknownStep
from baton_workflow.domain.events import DomainEvent
from baton_workflow.domain.state import InstanceState, apply, with_signal
from baton_workflow.service.checkers import CheckContext, unreachable_causes
from baton_workflow.service.replies import require_same_command, turn_reply
from baton_workflow.service.signal_requests import (
    agents_data_kept,
    check_context,
    check_data,
    domain_command,
)
from baton_workflow.service.views import instance_view
from baton_workflow.service.wire import to_wire
from baton_workflow.service.workflow_services import WorkflowServices


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
    change, _ = _change(svc, None, events, definition)
    try:
        await svc.repo.save(0, change)
    except ActiveInstanceExists:  # a concurrent start won; answer with its instance
        winner = await svc.repo.find_active(cmd.user_id, cmd.workflow_id)
        if winner is None:
            raise RemoteError.of(ErrorCode.CONFLICT, "instance is starting; try again") from None
        return StartReply(created=False, instance=winner)
    svc.notify()
    return StartReply(created=True, instance=change.view)


@dataclass(frozen=True)
class TurnTime:
    """A turn's time (a signal's, a chat turn's): when its caller stops waiting, and what it is
    told when the turn could not be recorded by then, or could not be decided. Each refusal is
    `unavailable`, and in each case nothing of the turn was recorded, then or later."""

    deadline: datetime | None
    """Its wait for the instance and its conflict retries end here (a retry whose read or
    checkers took it past does not append)."""
    start_by: datetime | None
    """Its append, a first one too, still waiting for the database here is dropped."""
    queued_too_long: str
    """The refusal when the instance was still held by another turn at `deadline`."""
    out_of_time: str
    """The refusal when other writes to the instance kept going in first until `deadline`."""
    not_written_in_time: str
    """The refusal when its append had not started by `start_by`."""
    checked_too_late: str
    """The refusal when checking its step's criteria took it past `start_by`: a format string
    given `step` (the step's id) and `seconds` (how long the checks took)."""
    could_not_check: str
    """The refusal when a checker of its step got no answer from the service it asks: a
    format string given `step` and `causes` (each such checker's result)."""


SIGNAL_QUEUED_TOO_LONG = (
    "another message or signal to this instance was still being handled; nothing was "
    "recorded: send it again"
)
SIGNAL_OUT_OF_TIME = (
    "other messages or signals to this instance kept being recorded first until this "
    "signal's time ran out; nothing was recorded: send it again"
)
SIGNAL_NOT_WRITTEN_IN_TIME = (
    "the workflow service's database was too busy to record this signal before its time ran "
    "out; nothing was recorded: send it again"
)
SIGNAL_CHECKED_TOO_LATE = (
    "checking step {step!r}'s completion criteria took {seconds:.1f}s, until this signal's "
    "time ran out; nothing was recorded: send it again"
)
SIGNAL_COULD_NOT_CHECK = (
    "could not check whether step {step!r} can close ({causes}); nothing was recorded: "
    "send it again"
)


def signal_time(deadline: datetime | None) -> TurnTime:
    """A signal's time: its append starts by its deadline too (the gateway's 503 comes after
    it, with a database statement's time to spare)."""
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
    time = signal_time(svc.deadline(svc.signal_timeout))
    if isinstance(cmd, RecordExchange):
        cmd = agents_data_kept(cmd)
    check_data(cmd.signal)
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


@contextlib.asynccontextmanager
async def instance_locked(
    svc: WorkflowServices, instance_id: str, time: TurnTime
) -> AsyncIterator[None]:
    """The instance's lock, waited for until the turn's deadline at most; then `unavailable`
    with its `queued_too_long` (nothing was done)."""
    lock = svc.instance_lock(instance_id)
    deadline = time.deadline
    left = None if deadline is None else (deadline - datetime.now(UTC)).total_seconds()
    try:
        async with asyncio.timeout(left):
            await lock.acquire()
    except TimeoutError:
        raise RemoteError.of(ErrorCode.UNAVAILABLE, time.queued_too_long) from None
    try:
        yield
    finally:
        lock.release()


CommandFor = Callable[[InstanceState], dc.SendSignal | dc.RecordExchange]
"""The command to decide on, given the state it will be decided against (after a reload)."""


async def commit_turn(
    svc: WorkflowServices,
    instance_id: str,
    user_id: str,
    command_for: CommandFor,
    time: TurnTime,
    loaded: LoadedInstance | None = None,
) -> tuple[TurnReply, LoadedInstance | None]:
    """Decide and append one turn; on a version conflict reload and decide again, but not
    past the turn's deadline (its caller would have given up on an append started then):
    then `unavailable` with its `out_of_time`. An append, a first one too, still waiting for
    the database at its `start_by` is dropped: `unavailable` with its `not_written_in_time`.
    Retries that run out before the deadline (`conflict_retries` and `conflict_seconds`) end
    in the `busy` conflict. Nothing of the turn was recorded in any of these cases.

    Returns the reply, and the loaded instance when the command had been handled before
    (a replay), so callers can answer from what was recorded.
    """
    clock = asyncio.get_running_loop().time
    give_up_at = clock() + svc.conflict_seconds
    attempt = 0
    while attempt <= svc.conflict_retries or clock() < give_up_at:
        if attempt and _past(time.deadline):
            break
        if attempt:  # another replica wrote first: spread the retries out
            await asyncio.sleep(random.uniform(0, 0.002 * min(attempt, 10)))
        if loaded is None or attempt:
            loaded = await svc.owned(instance_id, user_id, fresh=attempt > 0)
        state = loaded.state
        definition = svc.definition(state.workflow_id)
        command = command_for(state)
        if command.command_id in state.outcomes:
            return replay_turn(loaded, command.command_id, definition, svc), loaded
        check_context(state, command.signal)
        events = await _decide(svc, state, command, definition, time)
        change, after = _change(svc, state, events, definition)
        if attempt and _past(time.deadline):
            break  # its read or its checkers took it there: an append now would come late
        try:
            await svc.repo.save(state.version, change, time.start_by)
        except ConcurrencyConflict:
            attempt += 1
            continue
        except StartByPassed:
            raise RemoteError.of(ErrorCode.UNAVAILABLE, time.not_written_in_time) from None
        svc.notify()
        return turn_reply(command.command_id, events, after, change), None
    if _past(time.deadline):
        raise RemoteError.of(ErrorCode.UNAVAILABLE, time.out_of_time)
    raise RemoteError.of(ErrorCode.CONFLICT, f"instance {instance_id!r} is busy; try again")


def _past(deadline: datetime | None) -> bool:
    return deadline is not None and datetime.now(UTC) >= deadline


async def _decide(
    svc: WorkflowServices,
    state: InstanceState,
    command: dc.SendSignal | dc.RecordExchange,
    definition: WorkflowDefinition,
    time: TurnTime,
) -> list[DomainEvent]:
    """The turn's events, its step's criteria checked when they decide it. Checks that took
    the turn past its start-by (a slow checker, each bounded by the checker timeout, after a
    wait for the instance) end it `unavailable` with its `checked_too_late`, naming the step
    and their time: told the database was too busy, as the append would then say, an
    operator would look in the wrong place.

    A checker whose service did not answer (`Unreachable`: the agent-runner restarting) ends
    the turn `unavailable` with its `could_not_check`, nothing recorded: counted as not met,
    it recorded the step blocked, for good, on a restart; after the chat pre-check had found
    the step could close, the agent had told the user it was moving on."""
    report = None
    if needs_criteria(state, command, definition):
        step = definition.step(state.current_step)
        count = state.messages_in_step + isinstance(command, dc.RecordExchange)
        signal, preview = command.signal, state
        if signal is not None and (signal.data or signal.shared):  # else: a copy, unchanged
            preview = with_signal(state, signal)
        ctx = CheckContext(preview, step, command.signal, count, svc.agent_runner)
        checked_from = datetime.now(UTC)
        report = await svc.checkers.evaluate(ctx, step.completion_criteria, svc.checker_timeout)
        start_by = time.start_by
        if start_by is not None and checked_from < start_by <= (now := datetime.now(UTC)):
            seconds = (now - checked_from).total_seconds()
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, time.checked_too_late.format(step=step.id, seconds=seconds)
            )
        if causes := unreachable_causes(report):
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, time.could_not_check.format(step=step.id, causes=causes)
            )
    try:
        return decide(state, command, definition, svc.clock.now(), report)
    except InstanceNotActive as exc:
        raise not_active(state) from exc
    except UnknownStep as exc:
        raise RemoteError.of(
            ErrorCode.INVALID,
            str(exc),
            [ErrorDetail(field="signal.target_step", message=str(exc))],
        ) from None


def not_active(state: InstanceState) -> RemoteError:
    """The refusal of a signal or a message to an instance that takes none any more."""
    return RemoteError.of(
        ErrorCode.CONFLICT,
        f"instance {state.instance_id!r} is {state.status}: it takes no more signals or messages",
        [ErrorDetail(field="instance_id", message=f"the instance is {state.status}")],
    )


def _change(
    svc: WorkflowServices,
    state: InstanceState | None,
    events: list[DomainEvent],
    definition: WorkflowDefinition,
) -> tuple[Change, InstanceState]:
    ids, wire = [svc.new_id() for _ in events], []
    for event_id, event in zip(ids, events, strict=True):
        state = apply(state, event)
        wire.append(to_wire(event, state, definition, event_id))
    assert state is not None
    # The read row changes when the events happened: one timestamp for the whole change.
    view = instance_view(state, definition, events[-1].at if events else svc.clock.now())
    return Change(event_ids=ids, events=events, wire=wire, view=view, state=state), state


def replay_turn(
    loaded: LoadedInstance, command_id: str, definition: WorkflowDefinition, svc: WorkflowServices
) -> TurnReply:
    # Last changed when its last event happened, as its read row says: not at the retry.
    at = loaded.events[-1].at if loaded.events else svc.clock.now()
    view = instance_view(loaded.state, definition, at)
    change = Change(event_ids=(), events=(), wire=(), view=view)
    return turn_reply(command_id, loaded.events, loaded.state, change)
