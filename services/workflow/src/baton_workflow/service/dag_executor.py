"""The DAG executor: which runs this process drives, under a lease, and a sweep for the runs
whose driver went away; each run's own loop is a `RunDrive` (`dag_drive`).

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
from collections.abc import Callable
from dataclasses import dataclass, field

from baton_eventstore import is_unavailable
from baton_messaging.cancelling import cancel_and_wait
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.state import RunState
from baton_workflow.service.dag_drive import RunDrive
from baton_workflow.service.dag_ports import RunStore
from baton_workflow.service.dag_steps import StepRunners
from baton_workflow.service.ports import Clock

# The logger the run code has always written to (before it was split out of `dag_runs`):
# log filters that select it by name keep seeing these lines.
log = logging.getLogger("baton_workflow.service.dag_runs")


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
    _drives: dict[str, RunDrive] = field(default_factory=dict, repr=False)
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
        await cancel_and_wait(tasks)  # the sweeper loops: a cancel lost in a library is repeated
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
        that ran out a whole lease period ago go: a margin, though expiries are set and read by
        one clock (on PostgreSQL the database server's, whichever replica asks)."""
        try:
            await self.runs.prune_leases(self.lease_seconds)
        except Exception as exc:
            _log_failure(exc, "could not delete expired DAG run leases; trying again soon")

    async def _drive(self, run_id: str, started: RunState | None = None) -> None:
        try:
            if not await self.runs.take_lease(run_id, self.holder, self.lease_seconds):
                return
        except Exception as exc:  # the sweep launches the run again
            _log_failure(exc, f"driving run {run_id} failed; another attempt follows")
            return
        if started is None:
            # Said once per take: after a crash, which replica carries a run on, and when.
            log.info(
                "driving run %s from its log: nobody else drives it (this service restarted, "
                "or the replica that drove it stopped or let its lease run out)",
                run_id,
            )
        drive = RunDrive(self, run_id)
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


def _log_failure(exc: Exception, what: str) -> None:
    """A database outage is expected and retried: one warning line, not a traceback each time.

    Anything else is a bug, logged as an error with its traceback.
    """
    if is_unavailable(exc):
        log.warning("%s: the database is unavailable (%s: %s)", what, type(exc).__name__, exc)
    else:
        log.error("%s", what, exc_info=exc)
