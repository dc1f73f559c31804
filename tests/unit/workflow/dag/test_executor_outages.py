"""How the DAG executor logs what stops it: an outage in one line, a bug with its traceback.

During a database outage the sweeper and every run's driver fail again and again until the
database is back; a traceback for each would bury the log. A bug is still an error with its
traceback.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import pytest

from baton_eventstore import StoreUnavailable
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.state import RunState
from baton_workflow.service.dag_runs import DagExecutor, StepRunners

LOGGER = "baton_workflow.service.dag_runs"


class FailingRuns:
    """A run store that lends every lease but fails its first `failures` reads with `error`;
    then it holds one unfinished run, "r1" (empty). Pruning leases fails with `error` while
    reads do, and its first `prune_failures` times."""

    def __init__(
        self,
        error: Exception,
        failures: int = 1_000_000,
        prune_failures: int = 0,
        lease_failures: int = 0,
    ) -> None:
        self.error = error
        self.failures = failures
        self.prune_failures = prune_failures
        self.lease_failures = lease_failures
        self.reads = 0
        self.prunes: list[float] = []  # `expired_for` of each attempt
        self.loaded = asyncio.Event()

    def _read(self) -> None:
        self.reads += 1
        if self.reads <= self.failures:
            raise self.error

    async def running(self) -> list[str]:
        self._read()
        return ["r1"]

    async def load(self, run_id: str) -> tuple[RunState | None, int, list[object]]:
        self._read()
        self.loaded.set()
        return None, 0, []

    async def take_lease(self, run_id: str, holder: str, ttl: float) -> bool:
        if self.lease_failures:
            self.lease_failures -= 1
            raise self.error
        return True

    async def drop_lease(self, run_id: str, holder: str) -> None:
        return None

    async def prune_leases(self, expired_for: float) -> int:
        self.prunes.append(expired_for)
        if self.reads <= self.failures or len(self.prunes) <= self.prune_failures:
            raise self.error
        return 0


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 11, 24, 9, 0, tzinfo=UTC)


def executor(runs: FailingRuns) -> DagExecutor:
    clock = FixedClock()
    runners = StepRunners(agents=None, tools=None, skills=None, clock=clock)  # type: ignore[arg-type]
    return DagExecutor(
        runs=runs,  # type: ignore[arg-type]
        runners=runners,
        clock=clock,
        pricing=PricingTable(),
        notify=lambda: None,
        lease_seconds=0.02,
    )


def _records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the executor said of failures (a run it takes up is said at INFO)."""
    return [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]


OUTAGES = [
    StoreUnavailable("the database is not there"),
    ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"),
]


@pytest.mark.parametrize("error", OUTAGES, ids=lambda e: type(e).__name__)
async def test_an_outage_while_driving_a_run_is_one_warning_line(
    caplog: pytest.LogCaptureFixture, error: Exception
) -> None:
    caplog.set_level(logging.INFO)
    ex = executor(FailingRuns(error))
    ex.launch("r1")
    await ex.wait_idle()

    (record,) = _records(caplog)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    assert "driving run r1 failed" in record.getMessage()
    assert "the database is unavailable" in record.getMessage()


async def test_an_outage_while_taking_a_runs_lease_is_one_warning_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    ex = executor(FailingRuns(StoreUnavailable("connection reset"), failures=0, lease_failures=1))
    ex.launch("r1")
    drive = ex._tasks["r1"]
    await ex.wait_idle()

    # An exception left in the task is logged by asyncio, traceback and all, as "Task
    # exception was never retrieved" (seen while PostgreSQL's connections were being cut).
    assert drive.exception() is None
    (record,) = _records(caplog)
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "driving run r1 failed" in record.getMessage()
    assert "the database is unavailable" in record.getMessage()


async def test_an_outage_while_sweeping_is_a_warning_per_look_until_the_runs_are_taken_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    runs = FailingRuns(ConnectionRefusedError(111, "Connect call failed"), failures=3)
    ex = executor(runs)
    ex._sweeper = asyncio.create_task(ex._sweep())
    await asyncio.wait_for(runs.loaded.wait(), timeout=5)  # the database is back: r1 is driven
    await ex.stop()

    records = _records(caplog)
    assert len(records) == 3  # a prune of leases tried while it was down would be a fourth
    assert all(r.levelno == logging.WARNING and r.exc_info is None for r in records)
    assert "could not look for unfinished DAG runs" in records[0].getMessage()


async def test_a_failed_prune_of_expired_leases_is_a_warning_and_the_sweep_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    runs = FailingRuns(StoreUnavailable("the database is not there"), failures=0, prune_failures=2)
    ex = executor(runs)
    ex._sweeper = asyncio.create_task(ex._sweep())
    for _ in range(500):  # two fail, then two go through: the sweep keeps going
        if len(runs.prunes) >= 4:
            break
        await asyncio.sleep(0.01)
    await ex.stop()

    assert len(runs.prunes) >= 4
    assert set(runs.prunes) == {ex.lease_seconds}  # leases that ran out a lease period ago
    assert runs.reads >= 4  # one look for unfinished runs per prune
    records = _records(caplog)
    assert len(records) == 2
    assert all(r.levelno == logging.WARNING and r.exc_info is None for r in records)
    assert "could not delete expired DAG run leases" in records[0].getMessage()


async def test_a_bug_while_driving_a_run_is_an_error_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    ex = executor(FailingRuns(KeyError("steps")))
    ex.launch("r1")
    await ex.wait_idle()

    (record,) = _records(caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None and record.exc_info[0] is KeyError
    assert "driving run r1 failed" in record.getMessage()


class HealthyRuns(FailingRuns):
    def __init__(self) -> None:
        super().__init__(StoreUnavailable("never raised"), failures=0)


async def test_a_run_taken_up_from_its_log_is_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # After a replica was killed, the one that carried its runs on said nothing: an operator
    # could not tell from the logs which replica took a run up, nor when.
    caplog.set_level(logging.INFO, logger=LOGGER)
    ex = executor(HealthyRuns())
    ex.launch("r1")
    await ex.wait_idle()

    said = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert said == [
        "driving run r1 from its log: nobody else drives it (this service restarted, or the "
        "replica that drove it stopped or let its lease run out)"
    ]
