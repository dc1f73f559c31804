"""A turn of an instance (a signal, an exchange, a chat turn's exchange): its wait for the
instance, its decision (its step's criteria checked when they decide it), its append, reloaded
and decided again on a conflict until its time runs out, and its answer from the log when its
command had been handled before."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.workflow_api import TurnReply
from baton_eventstore import ConcurrencyConflict, StartByPassed
from baton_workflow.adapters.instances import Change, LoadedInstance
from baton_workflow.domain import commands as dc
from baton_workflow.domain.decide import decide, needs_criteria
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.errors import InstanceNotActive, UnknownStep
from baton_workflow.domain.events import DomainEvent
from baton_workflow.domain.state import InstanceState, apply, with_signal
from baton_workflow.service.checkers import CheckContext, unreachable_causes
from baton_workflow.service.replies import turn_reply
from baton_workflow.service.signal_requests import check_context
from baton_workflow.service.views import instance_view
from baton_workflow.service.wire import to_wire
from baton_workflow.service.workflow_services import WorkflowServices


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
        change, after = change_of(svc, state, events, definition)
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
            ErrorCode.INVALID, str(exc), [ErrorDetail(field=exc.field, message=exc.problem)]
        ) from None


def not_active(state: InstanceState) -> RemoteError:
    """The refusal of a signal or a message to an instance that takes none any more."""
    return RemoteError.of(
        ErrorCode.CONFLICT,
        f"instance {state.instance_id!r} is {state.status}: it takes no more signals or messages",
        [ErrorDetail(field="instance_id", message=f"the instance is {state.status}")],
    )


def change_of(
    svc: WorkflowServices,
    state: InstanceState | None,
    events: list[DomainEvent],
    definition: WorkflowDefinition,
) -> tuple[Change, InstanceState]:
    """What `events` change from `state` (each applied, its contract twin, the read row), and
    the state after: one `Change` for the repository to save."""
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
