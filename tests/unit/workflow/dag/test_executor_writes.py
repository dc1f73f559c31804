"""The DAG executor's writes: one append per step, no read-back of a run it just started, and
a cancel appended from outside the driver (another replica's, or the cancel request itself).

In memory (no broker, no database): a run store that records every append, load and lease
call, and agents that answer at once. These guard the executor's cheap path (see
`make bench`, case `dag.run.postgres`) without changing what the log holds.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from baton_contracts.agent_api import CancelTask, RunTask, TaskResult
from baton_eventstore import ConcurrencyConflict
from baton_workflow.domain.dag.events import RunCancelRequested, RunEvent, StepSucceeded
from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.scheduler import decide, start_run
from baton_workflow.domain.dag.state import RunState
from baton_workflow.service import dag_drive
from baton_workflow.service.dag_runs import DagExecutor, StepRunners

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
LINEAR = {
    "name": "two-steps",
    "steps": [
        {"id": "a", "prompt": "first"},
        {"id": "b", "prompt": "second", "dependsOn": ["a"]},
    ],
}


class FixedClock:
    def now(self) -> datetime:
        return T0


class MemoryRuns:
    """A run store that keeps what it is asked to do."""

    def __init__(self) -> None:
        self.logs: dict[str, list[RunEvent]] = {}
        self.batches: list[list[str]] = []
        self.loads = 0
        self.dropped: list[str] = []

    async def load(self, run_id: str) -> tuple[RunState | None, int, list[RunEvent]]:
        self.loads += 1
        history = list(self.logs.get(run_id, []))
        return fold(history), len(history), history

    async def append(
        self,
        run_id: str,
        expected_version: int,
        before: RunState | None,
        events: Sequence[RunEvent],
        *,
        request_id: str | None = None,
    ) -> RunState:
        log = self.logs.setdefault(run_id, [])
        if len(log) != expected_version:
            raise ConcurrencyConflict(run_id, expected_version, len(log))
        log.extend(events)
        self.batches.append([e.type.removeprefix("workflow_run.") for e in events])
        after = fold(events, before)
        assert after is not None
        return after

    async def find_request(self, owner: str, request_id: str) -> str | None:
        return None

    async def listed(self, owner: str, workflow: str | None, limit: int) -> list[dict[str, Any]]:
        return []

    async def running(self) -> list[str]:
        return []

    async def running_count(self, owner: str) -> int:
        return 0

    async def log_version(self, run_id: str) -> int:
        return len(self.logs.get(run_id, []))

    async def take_lease(self, run_id: str, holder: str, ttl: float) -> bool:
        return True

    async def drop_lease(self, run_id: str, holder: str) -> None:
        self.dropped.append(run_id)

    async def prune_leases(self, expired_for: float) -> int:
        return 0


class InstantAgents:
    """Answers every step at once; with `hold`, never answers (a call stays in flight)."""

    def __init__(self, hold: bool = False) -> None:
        self.hold = hold
        self.called = asyncio.Event()
        self.gate = asyncio.Event()  # set: a held call answers
        self.cancelled: list[CancelTask] = []

    async def run_task(self, request: RunTask, timeout: float, retry_for: float) -> TaskResult:
        self.called.set()
        if self.hold:
            await self.gate.wait()
        return TaskResult(output=f"done {request.step_id}", agent=request.agent, cost_usd=0.001)

    async def cancel_task(self, notice: CancelTask) -> None:
        self.cancelled.append(notice)


def executor(runs: MemoryRuns, agents: InstantAgents, lease_seconds: float = 15.0) -> DagExecutor:
    clock = FixedClock()
    runners = StepRunners(agents=agents, tools=None, skills=None, clock=clock)  # type: ignore[arg-type]
    return DagExecutor(
        runs=runs,
        runners=runners,
        clock=clock,
        pricing=PricingTable(),
        notify=lambda: None,
        lease_seconds=lease_seconds,
    )


async def started(runs: MemoryRuns, run_id: str) -> RunState:
    event = start_run(parse_definition(LINEAR), run_id=run_id, now=T0, user_id="ada")
    return await runs.append(run_id, 0, None, [event])


async def test_each_result_is_appended_with_the_step_it_starts() -> None:
    runs = MemoryRuns()
    ex = executor(runs, InstantAgents())
    ex.launch("r1", await started(runs, "r1"))
    await ex.wait_idle()

    assert runs.batches == [
        ["started"],
        ["step_started"],
        ["step_succeeded", "step_started"],
        ["step_succeeded", "completed"],
    ]
    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "success"
    assert final.steps["b"].output == "done b"


async def test_a_run_started_here_is_not_read_back_and_keeps_its_lease_once_finished() -> None:
    runs = MemoryRuns()
    ex = executor(runs, InstantAgents())
    ex.launch("r1", await started(runs, "r1"))
    await ex.wait_idle()

    assert runs.loads == 0
    assert runs.dropped == []  # a finished run is never driven again; its lease just expires


async def test_a_resumed_run_is_loaded_from_its_log() -> None:
    runs = MemoryRuns()
    await started(runs, "r1")
    ex = executor(runs, InstantAgents())
    ex.launch("r1")
    await ex.wait_idle()

    assert runs.loads == 1
    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "success"


async def test_an_unfinished_run_gives_its_lease_back_when_the_executor_stops() -> None:
    runs = MemoryRuns()
    agents = InstantAgents(hold=True)
    ex = executor(runs, agents)
    ex.launch("r1", await started(runs, "r1"))
    await agents.called.wait()

    await ex.stop()

    assert runs.dropped == ["r1"]
    assert runs.batches[-1] == ["step_started"]  # the call in flight has no result recorded


async def _cancel_from_outside(runs: MemoryRuns, run_id: str) -> None:
    state, version, _ = await runs.load(run_id)
    cancel = RunCancelRequested(run_id=run_id, at=T0, reason="wrong topic")
    await runs.append(run_id, version, state, [cancel])


async def test_a_poked_drive_reads_the_cancel_and_tells_the_agent_runner_to_stop() -> None:
    runs = MemoryRuns()
    agents = InstantAgents(hold=True)
    ex = executor(runs, agents)
    ex.launch("r1", await started(runs, "r1"))
    await agents.called.wait()

    await _cancel_from_outside(runs, "r1")
    ex.poke("r1")
    await asyncio.wait_for(ex.wait_idle(), 5.0)

    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "cancelled"
    assert final.error == "run cancelled: wrong topic"
    assert [(n.user_id, n.idempotency_key, n.reason) for n in agents.cancelled] == [
        ("ada", "r1:a:1", "run cancelled: wrong topic")
    ]


async def test_a_drive_whose_write_conflicts_reads_the_log_again_and_goes_on() -> None:
    runs = MemoryRuns()
    agents = InstantAgents(hold=True)
    ex = executor(runs, agents)
    ex.launch("r1", await started(runs, "r1"))
    await agents.called.wait()

    await _cancel_from_outside(runs, "r1")  # no poke: the drive finds out when it writes
    agents.gate.set()
    await asyncio.wait_for(ex.wait_idle(), 5.0)

    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "cancelled"
    assert final.steps["a"].status == "success"  # its result was kept, not lost
    assert final.steps["b"].status == "skipped"
    assert runs.dropped == []  # the run ended here: its lease was not handed on


class OneStepHeld(InstantAgents):
    """Holds the calls of `held` steps until `gate` is set; answers the others at once."""

    def __init__(self, held: set[str]) -> None:
        super().__init__()
        self.held, self.keys = held, list[str]()

    async def run_task(self, request: RunTask, timeout: float, retry_for: float) -> TaskResult:
        self.keys.append(request.idempotency_key)
        self.called.set()
        if request.step_id in self.held:
            await self.gate.wait()
        return TaskResult(output=f"done {request.step_id}", agent=request.agent)


async def test_a_step_another_drive_started_is_called_here_after_a_reload() -> None:
    # Two drives overlapped (one stalled past its lease): the other one recorded a's result
    # and started b, then went away with its call of b. This drive's own write of a
    # conflicts; it reads the log again and must call b itself, or b stays running.
    runs = MemoryRuns()
    agents = OneStepHeld(held={"a"})
    ex = executor(runs, agents)
    ex.launch("r1", await started(runs, "r1"))
    await agents.called.wait()
    state, version, _ = await runs.load("r1")
    assert state is not None
    done = StepSucceeded(run_id="r1", at=T0, step_id="a", attempt=1, output="done a")
    after = fold([done], state)
    assert after is not None
    elsewhere = decide(after, T0)  # what the other drive wrote: a's result and b's start
    await runs.append("r1", version, state, [done, *elsewhere.events])
    agents.gate.set()
    await asyncio.wait_for(ex.wait_idle(), 5.0)

    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "success"
    assert agents.keys == ["r1:a:1", "r1:b:1"]


async def test_a_finished_drive_leaves_no_entry_behind() -> None:
    runs = MemoryRuns()
    ex = executor(runs, InstantAgents())
    for n in range(3):
        ex.launch(f"r{n}", await started(runs, f"r{n}"))
    await asyncio.wait_for(ex.wait_idle(), 5.0)
    await asyncio.sleep(0)  # done callbacks run on the next loop turn
    assert ex._tasks == {}


async def test_a_cancel_whose_notice_was_lost_is_seen_when_the_lease_is_renewed() -> None:
    runs = MemoryRuns()
    agents = InstantAgents(hold=True)  # the step would never answer
    ex = executor(runs, agents, lease_seconds=0.3)
    ex.launch("r1", await started(runs, "r1"))
    await agents.called.wait()

    await _cancel_from_outside(runs, "r1")  # no poke, and the drive has nothing to write
    await asyncio.wait_for(ex.wait_idle(), 5.0)

    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "cancelled"
    assert [n.idempotency_key for n in agents.cancelled] == ["r1:a:1"]


async def test_poking_a_run_nobody_drives_takes_it_over() -> None:
    runs = MemoryRuns()
    await started(runs, "r1")
    ex = executor(runs, InstantAgents())
    ex.poke("r1")
    await asyncio.wait_for(ex.wait_idle(), 5.0)

    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "success"


async def test_a_large_runs_decision_is_made_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Starting thousands of steps is a second or more of deciding; on the event loop it held
    # up every other request and run of the replica. The decision is replaced by one that
    # blocks its thread until the loop has run something else: were it made on the loop, the
    # loop could not, and the stub would give up waiting. (A run of at most OFF_LOOP_STEPS
    # steps is decided on the loop, a thread's hop costing more: this one counts as large.)
    monkeypatch.setattr(dag_drive, "OFF_LOOP_STEPS", 0)
    entered, release = threading.Event(), threading.Event()
    answered_meanwhile: list[bool] = []

    def blocking_decide(state: RunState, now: datetime, **options: Any) -> Any:
        if not answered_meanwhile:
            entered.set()
            answered_meanwhile.append(release.wait(30.0))
        return decide(state, now, **options)

    monkeypatch.setattr(dag_drive, "decide", blocking_decide)
    runs = MemoryRuns()
    ex = executor(runs, InstantAgents())
    ex.launch("r1", await started(runs, "r1"))
    assert await asyncio.to_thread(entered.wait, 30.0)
    release.set()  # the loop runs this while the decision is being made
    await asyncio.wait_for(ex.wait_idle(), 30.0)

    assert answered_meanwhile == [True]
    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "success"


async def test_a_small_runs_decision_is_made_on_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A thread's hop per decision (tens of microseconds, and a wake-up of the loop) cost more
    # than deciding a run of a few steps.
    threads: list[int] = []

    def recording_decide(state: RunState, now: datetime, **options: Any) -> Any:
        threads.append(threading.get_ident())
        return decide(state, now, **options)

    monkeypatch.setattr(dag_drive, "decide", recording_decide)
    runs = MemoryRuns()
    ex = executor(runs, InstantAgents())
    ex.launch("r1", await started(runs, "r1"))
    await asyncio.wait_for(ex.wait_idle(), 30.0)
    assert threads and set(threads) == {threading.get_ident()}


async def test_results_that_arrive_together_are_recorded_a_bounded_number_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 17,600 agent calls answered together were one append of 17,600 events (and on
    # PostgreSQL one statement past its timeout): a drive records at most so many per write.
    monkeypatch.setattr(dag_drive, "RESULTS_PER_DECISION", 50, raising=False)
    document = {"name": "fan", "steps": [{"id": f"s{i}", "prompt": "x"} for i in range(300)]}
    runs = MemoryRuns()
    event = start_run(parse_definition(document), run_id="r1", now=T0, user_id="ada")
    ex = executor(runs, InstantAgents())
    ex.launch("r1", await runs.append("r1", 0, None, [event]))
    await ex.wait_idle()

    recorded = [batch.count("step_succeeded") for batch in runs.batches]
    assert max(recorded) == 50 and sum(recorded) == 300
    final = fold(runs.logs["r1"])
    assert final is not None and final.status == "success"
