"""One DAG run's loop in the process that holds its lease: fold the log, decide, append, call,
wait for results or the next timer (the whole cycle is described in `dag_executor`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from baton_eventstore import ConcurrencyConflict
from baton_messaging.cancelling import cancel_and_wait
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.actions import CallAgent, CallSkill, CallTool, CancelStep, in_flight
from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.scheduler import MAX_DECISION_EVENTS, Decision, decide
from baton_workflow.domain.dag.state import RunState, StepState
from baton_workflow.service.dag_steps import AGENT_STEP_TYPES, Call

if TYPE_CHECKING:  # the executor creates drives, so it imports this module
    from baton_workflow.service.dag_executor import DagExecutor

# The logger the run code has always written to (before it was split out of `dag_runs`):
# log filters that select it by name keep seeing these lines.
log = logging.getLogger("baton_workflow.service.dag_runs")

_WAKE = None
"""What `RunDrive.wake` puts in the results queue: no result, only a reason to look again."""


OFF_LOOP_STEPS = 200
"""A run of more steps than this is decided in a worker thread; a smaller one on the loop,
where its decision takes well under a thread's hop (tens of microseconds)."""


RESULTS_PER_DECISION = MAX_DECISION_EVENTS
"""The most results recorded in one append: 17,600 agent calls answered together were one
write of 17,600 events, with the decision they led to."""


class RunDrive:
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
        # The calls the log says are in flight (after a crash: the same keys, so no double
        # work) are made once the first decision is written, not before: a cancel or a
        # deadline recorded while nobody drove the run has by then ended those steps, and a
        # tool called first did its side effect before it was cancelled.
        unattended = True
        results: list[re.RunEvent] = []
        while True:
            now = self.ex.clock.now()
            # Results and what they lead to are appended together: one write per step, not two.
            # Nothing is called before the append, so the log still knows every call first.
            if self.stale:
                if not await self._reload():
                    return
                unattended = True
            results = self._wanted(results)
            if len(self.state.steps) > OFF_LOOP_STEPS:
                decision = await asyncio.to_thread(self._decide, results, now)
            else:  # a thread's hop costs more than a small run's whole decision
                decision = self._decide(results, now)
            try:
                await self._append([*results, *decision.events])
            except ConcurrencyConflict:
                # Written from outside (a cancel request; a driver holds the lease): read it
                # again and decide afresh, with the results still in hand.
                self.stale = True
                continue
            if unattended:
                unattended = False
                self._call_the_unattended()
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

    def _decide(self, results: list[re.RunEvent], now: datetime) -> Decision:
        """The results folded in and the decision on them. Run in a worker thread: starting
        thousands of steps at once is a second or more of pure work, which on the event loop
        held up every other request and run of this replica (the state is immutable, and
        nothing else touches this drive's until it returns)."""
        current = fold(results, self.state)
        assert current is not None
        return decide(current, now, pricing=self.ex.pricing, timeouts=self.ex.runners.timeouts)

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
        """After a start or a reload, and once the decision on what the log held is written,
        call what the log says is in flight but nothing here ever called.

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
        # The rest wait for the next cycle, which comes at once: one append stays within
        # what a transaction holds the database for (as `MAX_DECISION_EVENTS` does).
        while not self.results.empty() and len(results) < RESULTS_PER_DECISION:
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
        if any(isinstance(e, re.RunCompleted) for e in events):
            log_end(self.state)

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
        await cancel_and_wait(tasks)
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def log_end(state: RunState) -> None:
    """The line an operator reads when a run ends (its start's is in `start_dag_run`).

    A cancel's reason is text the user wrote, so it is left out; a failure's error is the
    one the run's reader sees (`step "x" failed (error): ...`), written by Baton.
    """
    # A run started before workflows had versions has no version id: its name says enough.
    name = f"run {state.run_id} of {state.version_id or state.workflow}"
    if state.status == "success":
        log.info("%s completed", name)
    elif state.status == "cancelled":
        log.info("%s cancelled", name)
    elif state.status == "timeout":
        log.info("%s timed out: %s", name, state.error)
    else:
        log.info("%s failed: %s", name, state.error)


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
