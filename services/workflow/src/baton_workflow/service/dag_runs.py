"""DAG runs: start one, read them, and drive each one from its log until it ends.

The executor loop per run: fold the log, `decide(state, now)`, append what it decided (events
before any call, so nothing is done that the log does not know), perform the calls, append each
result, and sleep until a result arrives or the next timer is due. A run is driven by one
process at a time (a lease); after a restart, or when that process's lease runs out, another
picks the run up: calls that were in flight are issued again with the same idempotency keys, so
the agent-runner answers from its record instead of calling the model twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import CancelTask, RunTask
from baton_contracts.dag_api import (
    CancelDagRun,
    DagAgentMessage,
    DagEstimate,
    DagHandoff,
    DagRunAccepted,
    DagRunCancel,
    DagRunChanged,
    DagRunDetail,
    DagRunList,
    DagRunSummary,
    DagStepView,
    GetDagRun,
    ListDagRuns,
    StartDagRun,
)
from baton_eventstore import ConcurrencyConflict, is_unavailable
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.actions import CallAgent, CallSkill, CallTool, CancelStep, in_flight
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.problems import InvalidWorkflow
from baton_workflow.domain.dag.scheduler import decide, start_run
from baton_workflow.domain.dag.state import RunState, StepState, fold
from baton_workflow.domain.dag.timeouts import DefaultTimeouts
from baton_workflow.domain.dag.validation import env_keys
from baton_workflow.service.dag_definitions import invalid, not_found
from baton_workflow.service.dag_ports import (
    DefinitionStore,
    RunRequestExists,
    RunStore,
    TaskAgents,
)
from baton_workflow.service.ports import Clock
from baton_workflow.service.step_ports import Skills, StepActionFailed, StepTimedOut, Tools

log = logging.getLogger(__name__)

Call = CallAgent | CallSkill | CallTool
AGENT_STEP_TYPES = frozenset({"dispatch", "handoff"})


@dataclass
class StepRunners:
    """What performs a step's call: agents over NATS, tools and skills in process."""

    agents: TaskAgents
    tools: Tools
    skills: Skills
    clock: Clock
    agent_timeout: float = 300.0
    tool_timeout: float = 30.0

    @property
    def timeouts(self) -> DefaultTimeouts:
        """The limits of steps that set no timeout, for the scheduler to record as deadlines."""
        return DefaultTimeouts(
            agent=timedelta(seconds=self.agent_timeout), tool=timedelta(seconds=self.tool_timeout)
        )

    async def perform(self, call: Call, user_id: str) -> re.StepSucceeded | re.StepFailed:
        """The event recording the call's result; never raises (but for cancellation)."""
        try:
            if isinstance(call, CallAgent):
                return await self._agent(call, user_id)
            timeout = self._time_left(call, self.tool_timeout)
            if isinstance(call, CallTool):
                output = (
                    await self.tools.call(call.tool_name, call.tool_input, timeout=timeout)
                ).output
            else:
                output = (await self.skills.run(call.skill, call.args, timeout=timeout)).output
            return call.succeeded(self.clock.now(), output)
        except StepTimedOut as exc:
            return call.failed(self.clock.now(), exc.message, status="timeout")
        except StepActionFailed as exc:
            return call.failed(self.clock.now(), exc.message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must fail the step, not stall the run
            log.exception("step %s of run %s failed unexpectedly", call.step_id, call.run_id)
            return call.failed(self.clock.now(), f"internal error: {type(exc).__name__}: {exc}")

    async def _agent(self, call: CallAgent, user_id: str) -> re.StepSucceeded | re.StepFailed:
        agent = call.agent or "default"
        timeout = self._time_left(call, self.agent_timeout)
        deadline = call.deadline or self.clock.now() + timedelta(seconds=timeout)
        request = _task_request(call, user_id, agent, timeout, deadline)
        try:
            result = await self.agents.run_task(request, timeout=timeout + 1.0)
        except RemoteError as exc:
            message = exc.body.message
            if exc.code is ErrorCode.FORBIDDEN and message.startswith("budget exceeded"):
                return call.failed(self.clock.now(), message, status="budget_exceeded")
            return call.failed(self.clock.now(), f"agent {agent!r}: {message}")
        return call.succeeded(
            self.clock.now(),
            result.output,
            cost_usd=result.cost_usd,
            tokens_in=result.usage.input_tokens,
            tokens_out=result.usage.output_tokens,
            agent=result.agent or agent,
            model=result.model or None,
        )

    async def give_up(self, action: CancelStep, user_id: str) -> None:
        """Tell the agent-runner to stop a call this process no longer waits for (its result
        would be ignored); a notice that cannot be sent is logged, the deadline still ends it."""
        notice = CancelTask(
            user_id=user_id, idempotency_key=action.idempotency_key, reason=action.reason[:500]
        )
        try:
            await self.agents.cancel_task(notice)
        except Exception as exc:
            log.warning(
                "could not tell the agent-runner to stop %s: %s", action.idempotency_key, exc
            )

    def _time_left(self, call: Call, default: float) -> float:
        if call.deadline is None:
            return default
        return max(0.05, (call.deadline - self.clock.now()).total_seconds())


@dataclass
class DagExecutor:
    """Drives every run this process holds the lease of; `launch` after a start or on resume."""

    runs: RunStore
    runners: StepRunners
    clock: Clock
    pricing: PricingTable
    notify: Callable[[], None]
    lease_seconds: float = 15.0
    holder: str = field(default_factory=lambda: uuid.uuid4().hex)
    _tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict, repr=False)
    _drives: dict[str, _RunDrive] = field(default_factory=dict, repr=False)
    _sweeper: asyncio.Task[None] | None = field(default=None, repr=False)
    _stopping: bool = field(default=False, repr=False)

    def launch(self, run_id: str, started: RunState | None = None) -> None:
        """Start driving a run here, unless this process already does.

        `started` is the state of a run this process has just started (its first event only),
        so that driving it does not read back what was just written.
        """
        task = self._tasks.get(run_id)
        if self._stopping or (task is not None and not task.done()):
            return
        task = asyncio.create_task(self._drive(run_id, started), name=f"dag-run-{run_id}")
        self._tasks[run_id] = task
        task.add_done_callback(functools.partial(self._forget, run_id))

    def _forget(self, run_id: str, task: asyncio.Task[None]) -> None:
        """A drive that ended leaves nothing behind: one entry per run ever driven would grow
        the map, and every `wait_idle`, for as long as the process runs."""
        if self._tasks.get(run_id) is task:
            del self._tasks[run_id]

    def poke(self, run_id: str) -> None:
        """The run's log was written from outside its driver (a cancel): the drive here reads
        it again now; with no drive here, take the run if nobody else drives it."""
        drive = self._drives.get(run_id)
        if drive is not None:
            drive.wake()
        else:
            self.launch(run_id)

    async def start(self) -> None:
        """Resume unfinished runs now, and keep looking for runs whose driver went away."""
        await self.resume()
        self._sweeper = asyncio.create_task(self._sweep(), name="dag-run-sweeper")

    async def resume(self) -> None:
        """Launch every unfinished run (those another process holds are left to it)."""
        for run_id in await self.runs.running():
            self.launch(run_id)

    async def stop(self) -> None:
        """Stop driving: cancel in-flight calls and give the leases up for another process."""
        self._stopping = True
        tasks = [t for t in (self._sweeper, *self._tasks.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def wait_idle(self) -> None:
        """Wait until every run driven here has ended (tests and benchmarks)."""
        while pending := [t for t in self._tasks.values() if not t.done()]:
            await asyncio.wait(pending)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 2)
            try:
                await self.resume()
            except Exception as exc:
                _log_failure(exc, "could not look for unfinished DAG runs; looking again soon")
                continue  # the database is likely down: one line per look, not two
            await self._prune_leases()

    async def _prune_leases(self) -> None:
        """Delete the leases of runs nobody drives: a finished run leaves its lease to run out,
        so without this the lease table keeps a row per run ever driven.

        An expired lease is taken as a missing one is, so deleting one is safe. Only leases
        that ran out a whole lease period ago go: expiry times are the wall clock of whichever
        replica wrote them, and a replica whose clock runs ahead of the writer's (by less than
        a lease period) must not see a lease that is still held as long expired."""
        try:
            await self.runs.prune_leases(self.lease_seconds)
        except Exception as exc:
            _log_failure(exc, "could not delete expired DAG run leases; trying again soon")

    async def _drive(self, run_id: str, started: RunState | None = None) -> None:
        if not await self.runs.take_lease(run_id, self.holder, self.lease_seconds):
            return
        drive = _RunDrive(self, run_id)
        self._drives[run_id] = drive
        try:
            await drive.run(started)
        except Exception as exc:
            _log_failure(exc, f"driving run {run_id} failed; another attempt follows")
        finally:
            if self._drives.get(run_id) is drive:
                del self._drives[run_id]
            await drive.cancel_calls()
            # A finished run is never driven again: its lease can simply run out (one write
            # less per run; the sweep deletes it later). An unfinished one is given up so
            # another process may take it now.
            if drive.state is None or not drive.state.finished:
                with contextlib.suppress(Exception):
                    await self.runs.drop_lease(run_id, self.holder)


_WAKE = None
"""What `_RunDrive.wake` puts in the results queue: no result, only a reason to look again."""


def _log_failure(exc: Exception, what: str) -> None:
    """A database outage is expected and retried: one warning line, not a traceback each time.

    Anything else is a bug, logged as an error with its traceback.
    """
    if is_unavailable(exc):
        log.warning("%s: the database is unavailable (%s: %s)", what, type(exc).__name__, exc)
    else:
        log.error("%s", what, exc_info=exc)


class _RunDrive:
    """One run's loop in this process."""

    def __init__(self, executor: DagExecutor, run_id: str) -> None:
        self.ex = executor
        self.run_id = run_id
        self.calls: dict[str, asyncio.Task[None]] = {}
        self.called: set[str] = set()  # every key this drive called (a key is one attempt)
        self.results: asyncio.Queue[re.StepSucceeded | re.StepFailed | None] = asyncio.Queue()
        self.state: RunState | None = None
        self.version = 0
        self.renewed_at = 0.0
        self.stale = False  # the log was written from outside: read it again

    def wake(self) -> None:
        """Read the run's log again now (a cancel request was appended to it)."""
        self.stale = True
        self.results.put_nowait(_WAKE)

    async def run(self, started: RunState | None = None) -> None:
        loop = asyncio.get_running_loop()
        self.renewed_at = loop.time()
        if started is not None:  # written by this process a moment ago: version 1
            self.state, self.version = started, 1
        else:
            self.state, self.version, _ = await self.ex.runs.load(self.run_id)
        if self.state is None or self.state.finished:
            return
        for call in in_flight(self.state):  # after a crash: the same keys, so no double work
            self._spawn(call)
        results: list[re.RunEvent] = []
        while True:
            now = self.ex.clock.now()
            # Results and what they lead to are appended together: one write per step, not two.
            # Nothing is called before the append, so the log still knows every call first.
            if self.stale:
                if not await self._reload():
                    return
                self._call_the_unattended()
            results = self._wanted(results)
            current = fold(results, self.state)
            assert current is not None
            decision = decide(
                current, now, pricing=self.ex.pricing, timeouts=self.ex.runners.timeouts
            )
            try:
                await self._append([*results, *decision.events])
            except ConcurrencyConflict:
                # Written from outside (a cancel request; a driver holds the lease): read it
                # again and decide afresh, with the results still in hand.
                self.stale = True
                continue
            for action in decision.actions:
                if isinstance(action, CallAgent | CallSkill | CallTool):
                    self._spawn(action)
                elif isinstance(action, CancelStep):
                    await self._cancel(action)
            if self.state.finished:
                return
            results = await self._wait(decision.wake_at, now)
            if (
                loop.time() - self.renewed_at > self.ex.lease_seconds / 3
                and not await self._renew()
            ):
                return

    async def _renew(self) -> bool:
        """Renew the lease (False when it was lost), and look whether the log was written from
        outside: a `DagRunChanged` notice is heard at most once, so a cancel whose notice was
        lost is still seen within a third of the lease, not only at the drive's next write."""
        if not await self.ex.runs.take_lease(self.run_id, self.ex.holder, self.ex.lease_seconds):
            log.warning("lost the lease of run %s; another process drives it", self.run_id)
            return False
        self.renewed_at = asyncio.get_running_loop().time()
        if await self.ex.runs.log_version(self.run_id) > self.version:
            self.stale = True
        return True

    async def _reload(self) -> bool:
        """Read the run again if this process still drives it; False when it does not (the
        lease went to another process, or the run has ended)."""
        self.stale = False
        if not await self.ex.runs.take_lease(self.run_id, self.ex.holder, self.ex.lease_seconds):
            log.warning("run %s is driven by another process; leaving it to that one", self.run_id)
            return False
        self.renewed_at = asyncio.get_running_loop().time()
        self.state, self.version, _ = await self.ex.runs.load(self.run_id)
        return self.state is not None and not self.state.finished

    def _call_the_unattended(self) -> None:
        """After a reload, call what the log says is in flight but nothing here ever called.

        Two drives may overlap on a run (one stalled past its lease while another took it):
        a step the other one started, and whose call went with that drive, would otherwise
        stay `running` with no call until its deadline. The key is the same, so the
        agent-runner answers a call that did finish from its record.
        """
        assert self.state is not None
        for call in in_flight(self.state):
            if call.idempotency_key not in self.called:
                self._spawn(call)

    async def _cancel(self, action: CancelStep) -> None:
        task = self.calls.pop(action.idempotency_key, None)
        if task is None or task.done():
            return
        task.cancel()
        assert self.state is not None
        if self.state.definition.step(action.step_id).type in AGENT_STEP_TYPES:
            await self.ex.runners.give_up(action, self.state.user_id)

    async def _wait(self, wake_at: datetime | None, now: datetime) -> list[re.RunEvent]:
        """The results that arrived (all that are there once one is), until a timer is due."""
        timeout = self.ex.lease_seconds / 3
        if wake_at is not None:
            timeout = min(timeout, max(0.0, (wake_at - now).total_seconds()))
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for wraps the get in a task of its own.
            async with asyncio.timeout(timeout):
                first = await self.results.get()
        except TimeoutError:
            return []
        results = [first]
        while not self.results.empty():
            results.append(self.results.get_nowait())
        return [r for r in results if r is not None]

    def _wanted(self, results: list[re.RunEvent]) -> list[re.RunEvent]:
        """A late result of a cancelled or superseded attempt is not recorded."""
        assert self.state is not None
        return [
            r
            for r in results
            if isinstance(r, re.StepSucceeded | re.StepFailed)
            and (s := self.state.steps.get(r.step_id)) is not None
            and s.status == "running"
            and s.attempt == r.attempt
            and not _past_deadline(s, r, self.state.deadline)
        ]

    async def _append(self, events: Sequence[re.RunEvent]) -> None:
        if not events:
            return
        self.state = await self.ex.runs.append(self.run_id, self.version, self.state, events)
        self.version += len(events)
        self.ex.notify()

    def _spawn(self, call: Call) -> None:
        assert self.state is not None
        user_id = self.state.user_id

        async def perform() -> None:
            result = await self.ex.runners.perform(call, user_id)
            self.calls.pop(call.idempotency_key, None)
            await self.results.put(result)

        old = self.calls.get(call.idempotency_key)
        if old is not None and not old.done():
            return
        self.called.add(call.idempotency_key)
        self.calls[call.idempotency_key] = asyncio.create_task(
            perform(), name=f"dag-step-{call.idempotency_key}"
        )

    async def cancel_calls(self) -> None:
        tasks = list(self.calls.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


# What a RunTask field is called in the step, for errors in the author's terms.
_STEP_FIELDS = {
    "agent": "agent",
    "prompt": "prompt (its templates filled)",
    "context": "the handoff context (the whole output of handoffFrom)",
    "model": "model",
    "provider": "provider",
    "permission_mode": "permissionMode",
}


def _task_request(
    call: CallAgent, user_id: str, agent: str, timeout: float, deadline: datetime
) -> RunTask:
    """The agent-runner request of a call; `StepActionFailed` naming the field that cannot go.

    Templates are filled at run time, so a prompt may only now be too long (a page a tool
    fetched, say), or an agent name rendered from a variable may not be a name.
    """
    fields: dict[str, Any] = {
        "agent": agent,
        "prompt": call.prompt or " ",
        "context": call.handoff_context or "",
        "model": call.model,
        "provider": call.provider,
        "permission_mode": call.permission_mode,
    }
    try:
        return RunTask(
            user_id=user_id,
            run_id=call.run_id,
            step_id=call.step_id,
            context_from=call.handoff_from,
            budget_usd=call.budget_usd,
            timeout_seconds=timeout,
            idempotency_key=call.idempotency_key,
            deadline=deadline,
            shadow=call.shadow,
            **fields,
        )
    except ValidationError as exc:
        problems = [_field_problem(error, fields) for error in exc.errors()]
        raise StepActionFailed(f"cannot ask agent {agent!r}: " + "; ".join(problems)) from None


def _field_problem(error: Any, fields: Mapping[str, Any]) -> str:
    """One pydantic error of a RunTask as the step field and what is wrong with it."""
    name = str(error["loc"][0]) if error["loc"] else ""
    label, value = _STEP_FIELDS.get(name, name), fields.get(name)
    if error["type"] == "string_too_long" and isinstance(value, str):
        limit = error.get("ctx", {}).get("max_length")
        return f"{label} has {len(value):,} characters; an agent takes at most {limit:,}"
    shown = repr(value)[:80] if isinstance(value, str) else value
    return f"{label}: {error['msg']} (got {shown})"


def _past_deadline(
    step: StepState, result: re.StepSucceeded | re.StepFailed, run_deadline: datetime | None
) -> bool:
    """A result that came at or after its call's deadline (the earlier of the attempt's and
    the run's): the step, or the run, timed out.

    The agent-runner is given the time left as its own timeout, so it often answers "did not
    answer within" just as the deadline passes; dropping that answer lets the next decision
    fail the step with status `timeout`, or end the run, whichever side noticed first. A
    failure that is already a timeout (a tool's own, with its more precise message) is kept.
    """
    deadlines = [d for d in (step.deadline, run_deadline) if d is not None]
    if not deadlines or result.at < min(deadlines):
        return False
    return not (isinstance(result, re.StepFailed) and result.status == "timeout")


# --- use cases ---------------------------------------------------------------------------


@dataclass
class DagRunsService:
    """What the run use cases need, built by `bootstrap.build`."""

    definitions: DefinitionStore
    runs: RunStore
    executor: DagExecutor
    clock: Clock
    env_allowlist: frozenset[str] = frozenset()
    env_values: Mapping[str, str] = field(default_factory=dict)
    new_id: Callable[[], str] = field(default_factory=lambda: lambda: uuid.uuid4().hex)
    announce: Callable[[DagRunChanged], Awaitable[None]] | None = None
    """Tells every workflow replica that a run's log was written outside its driver."""


async def start_dag_run(svc: DagRunsService, command: StartDagRun) -> DagRunAccepted:
    """Start a run of the workflow's latest version (or return the one this request made).

    A repeated request id is found by the `dag_runs` unique key when the run is appended, so
    a first start asks nothing more of the database than the definition and the append.
    """
    history = await svc.definitions.history(command.user_id, command.name)
    latest = history.latest
    if not history.live or latest is None:
        if command.request_id is not None:  # the workflow went after this request started it
            earlier = await svc.runs.find_request(command.user_id, command.request_id)
            if earlier is not None:
                return await _accepted(svc, earlier)
        raise not_found(command.name)
    try:
        definition = parse_definition(latest.document, env_allowlist=svc.env_allowlist)
        started = start_run(
            definition,
            run_id=svc.new_id(),
            now=svc.clock.now(),
            variables=command.variables,
            env={k: svc.env_values[k] for k in env_keys(definition) if k in svc.env_values},
            mode=command.mode,
            version=latest.version,
            version_id=latest.version_id,
            user_id=command.user_id,
        )
    except InvalidWorkflow as exc:
        raise invalid(exc.problems, f"a run of {command.name!r}") from None
    try:
        state = await svc.runs.append(
            started.run_id, 0, None, [started], request_id=command.request_id
        )
    except RunRequestExists:
        assert command.request_id is not None
        earlier = await svc.runs.find_request(command.user_id, command.request_id)
        assert earlier is not None
        return await _accepted(svc, earlier)
    svc.executor.launch(started.run_id, state)
    return DagRunAccepted(
        run_id=started.run_id,
        workflow=started.workflow,
        version=started.version,
        version_id=started.version_id,
        mode=started.mode,
        status="running",
    )


async def _accepted(svc: DagRunsService, run_id: str) -> DagRunAccepted:
    state, _, _ = await svc.runs.load(run_id)
    assert state is not None
    return DagRunAccepted(
        run_id=run_id,
        workflow=state.workflow,
        version=state.version,
        version_id=state.version_id,
        mode=state.mode,
        status=state.status,
    )


async def list_dag_runs(svc: DagRunsService, query: ListDagRuns) -> DagRunList:
    """The user's runs (of one workflow when asked), newest first; shadow runs are not listed."""
    rows = await svc.runs.listed(query.user_id, query.workflow, query.limit)
    # No runs: an empty list for a workflow that exists (or was deleted), 404 for a wrong name.
    if query.workflow is not None and not rows and not await _known(svc, query):
        raise not_found(query.workflow)
    return DagRunList(
        runs=[
            DagRunSummary(
                run_id=r["run_id"],
                workflow=r["workflow"],
                version=r["version"],
                version_id=f"{r['workflow']}@{r['version']}",
                mode=r["mode"],
                status=r["status"],
                started_at=r["started_at"],
                finished_at=r["finished_at"],
                cost_usd=r["cost_usd"],
                error=r["error"],
            )
            for r in rows
        ]
    )


async def _known(svc: DagRunsService, query: ListDagRuns) -> bool:
    assert query.workflow is not None
    return bool((await svc.definitions.history(query.user_id, query.workflow)).versions)


CANCEL_ATTEMPTS = 5


async def cancel_dag_run(svc: DagRunsService, command: CancelDagRun) -> DagRunCancel:
    """Record that the owner cancels the run; its driver then cancels what is in flight and
    ends it as `cancelled`. Asking again changes nothing; an ended run is a `conflict`."""
    for _ in range(CANCEL_ATTEMPTS):
        state, version, _ = await svc.runs.load(command.run_id)
        if state is None or state.user_id != command.user_id:
            raise _run_not_found(command.run_id)
        if state.cancel_requested is not None:
            return DagRunCancel(
                run_id=state.run_id,
                status=state.status,
                reason=state.cancel_requested,
                recorded=False,
            )
        if state.finished:
            raise RemoteError.of(
                ErrorCode.CONFLICT,
                f"run {command.run_id} already ended with status {state.status}; "
                "only a running run can be cancelled",
            )
        requested = re.RunCancelRequested(
            run_id=state.run_id, at=svc.clock.now(), reason=command.reason
        )
        try:
            await svc.runs.append(state.run_id, version, state, [requested])
        except ConcurrencyConflict:
            continue  # its driver wrote a step's result meanwhile: look again
        svc.executor.poke(state.run_id)
        if svc.announce is not None:
            try:
                await svc.announce(DagRunChanged(run_id=state.run_id))
            except Exception as exc:  # recorded all the same: its driver sees it at its next write
                log.warning("could not announce the cancel of run %s: %s", state.run_id, exc)
        return DagRunCancel(
            run_id=state.run_id, status="running", reason=command.reason, recorded=True
        )
    raise RemoteError.of(
        ErrorCode.UNAVAILABLE,
        f"run {command.run_id} is changing too fast to record the cancel; try again",
    )


async def run_changed(svc: DagRunsService, notice: DagRunChanged) -> None:
    """Another replica wrote to a run's log: the drive here, if any, reads it again."""
    svc.executor.poke(notice.run_id)


def _run_not_found(run_id: str) -> RemoteError:
    return RemoteError.of(
        ErrorCode.NOT_FOUND,
        f"run {run_id!r} not found",
        [ErrorDetail(field="run_id", message=f"no run {run_id!r}")],
    )


async def get_dag_run(svc: DagRunsService, query: GetDagRun) -> DagRunDetail:
    """One of the user's runs with each step, its handoffs and its agent messages."""
    state, _, history = await svc.runs.load(query.run_id)
    if state is None or state.user_id != query.user_id:
        raise _run_not_found(query.run_id)
    return run_detail(state, history)


def run_detail(state: RunState, history: list[re.RunEvent]) -> DagRunDetail:
    """The API view of a run from its state and log."""
    definition = state.definition
    steps = [
        DagStepView(
            id=step.id,
            type=step.type,
            status=_step_status(state, step.id),
            attempts=state.steps[step.id].attempt,
            output=state.steps[step.id].output,
            error=state.steps[step.id].error or None,
            started_at=state.steps[step.id].started_at,
            finished_at=state.steps[step.id].finished_at,
            cost_usd=state.steps[step.id].cost_usd,
            tokens_in=state.steps[step.id].tokens_in,
            tokens_out=state.steps[step.id].tokens_out,
            agent=state.steps[step.id].agent,
            parent=definition.parents.get(step.id),
        )
        for step in definition.all_steps()
        if step.id in state.steps
    ]
    estimated = [s for s in state.steps.values() if s.estimated]
    estimate = None
    if state.mode == "dry_run":
        estimate = DagEstimate(
            tokens_in=sum(s.tokens_in for s in estimated),
            tokens_out=sum(s.tokens_out for s in estimated),
            cost_usd=sum(s.cost_usd for s in estimated),
        )
    return DagRunDetail(
        run_id=state.run_id,
        workflow=state.workflow,
        version=state.version,
        version_id=state.version_id,
        mode=state.mode,
        status=state.status,
        started_at=state.started_at,
        finished_at=state.finished_at,
        cost_usd=state.cost_usd,
        error=state.error or None,
        variables=dict(state.variables),
        steps=steps,
        handoffs=_handoffs(state, history),
        # Shadow runs keep no messages; a dry run sent none (its prompts were only priced).
        messages=_messages(state, history) if state.mode == "live" else [],
        estimate=estimate,
    )


_API_STATUS: dict[str, Any] = {
    "retry_wait": "waiting",
    "budget_exceeded": "error",
    "cancelled": "error",
}


def _step_status(state: RunState, step_id: str) -> Any:
    status = state.steps[step_id].status
    return _API_STATUS.get(status, status)


def _handoffs(state: RunState, history: list[re.RunEvent]) -> list[DagHandoff]:
    return [
        DagHandoff(
            from_step=e.handoff_from,
            to_step=e.step_id,
            agent=e.agent or "default",
            at=e.at,
        )
        for e in history
        if isinstance(e, re.StepSucceeded) and e.handoff_from and not e.estimated
    ]


def _never_sent(history: list[re.RunEvent]) -> set[tuple[str, int]]:
    """Attempts refused as they started (run budget, handoff source): no agent was asked.

    Such a refusal is decided together with the start, so it carries the start's own time;
    an agent's answer or a deadline always comes later.
    """
    started = {(e.step_id, e.attempt): e.at for e in history if isinstance(e, re.StepStarted)}
    return {
        (e.step_id, e.attempt)
        for e in history
        if isinstance(e, re.StepFailed) and started.get((e.step_id, e.attempt)) == e.at
    }


def _messages(state: RunState, history: list[re.RunEvent]) -> list[DagAgentMessage]:
    out: list[DagAgentMessage] = []
    refused = _never_sent(history)
    for e in history:
        if not isinstance(e, re.StepStarted | re.StepSucceeded):
            continue
        if state.definition.step(e.step_id).type not in AGENT_STEP_TYPES:
            continue
        if isinstance(e, re.StepStarted) and (e.step_id, e.attempt) in refused:
            continue
        if isinstance(e, re.StepStarted) and e.input.prompt is not None:
            agent = e.input.agent or "default"
            out.append(
                DagAgentMessage(
                    step=e.step_id, agent=agent, role="user", text=e.input.prompt, at=e.at
                )
            )
        elif isinstance(e, re.StepSucceeded) and not e.estimated:
            out.append(
                DagAgentMessage(
                    step=e.step_id,
                    agent=e.agent or "default",
                    role="assistant",
                    text=e.output,
                    at=e.at,
                )
            )
    return out
