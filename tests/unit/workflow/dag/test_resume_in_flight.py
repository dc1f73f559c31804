"""A resumed run decides on what its log holds before it calls again what was in flight: a
cancel or a deadline recorded while nobody drove the run ended those steps, and a tool called
first did its side effect anyway (found by a review of DAG run durability)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import timedelta

from baton_workflow.domain.dag.events import RunCancelRequested, RunEvent
from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.scheduler import decide, start_run
from baton_workflow.domain.dag.state import RunState
from baton_workflow.service.dag_runs import DagExecutor, StepRunners
from baton_workflow.service.step_ports import ToolResult

from .test_executor_writes import T0, FixedClock, MemoryRuns

TOOL = {"name": "hook", "steps": [{"id": "charge", "type": "tool_call", "toolName": "charge"}]}


class IoRuns(MemoryRuns):
    """Like a database: each write suspends (a real store awaits its I/O)."""

    async def append(
        self,
        run_id: str,
        expected_version: int,
        before: RunState | None,
        events: Sequence[RunEvent],
        *,
        request_id: str | None = None,
    ) -> RunState:
        await asyncio.sleep(0.01)
        return await super().append(run_id, expected_version, before, events, request_id=request_id)


class ChargeTool:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def call(
        self, name: str, inputs: Mapping[str, str], *, timeout: float, idempotency_key: str = ""
    ) -> ToolResult:
        self.calls.append(idempotency_key)  # the side effect happens here
        await asyncio.sleep(10)
        return ToolResult(output="charged")


async def test_a_run_cancelled_while_its_driver_was_gone_calls_no_tool_again() -> None:
    runs = IoRuns()
    definition = parse_definition(TOOL)
    first = start_run(definition, run_id="r1", now=T0, user_id="ada")
    state = fold([first])
    assert state is not None
    started = decide(state, T0, pricing=PricingTable())  # the tool step starts (in flight)
    cancel = RunCancelRequested(run_id="r1", at=T0, reason="stop it")
    runs.logs["r1"] = [first, *started.events, cancel]  # the driver died; then a cancel

    tool = ChargeTool()
    clock = FixedClock()
    runners = StepRunners(agents=None, tools=tool, skills=None, clock=clock)  # type: ignore[arg-type]
    ex = DagExecutor(
        runs=runs, runners=runners, clock=clock, pricing=PricingTable(), notify=lambda: None
    )
    ex.launch("r1")  # the sweep, or a restarted service, resumes it
    await ex.wait_idle()

    assert fold(runs.logs["r1"]).status == "cancelled"  # type: ignore[union-attr]
    assert tool.calls == []  # the run was cancelled before it was resumed


async def test_a_tool_step_past_its_deadline_is_not_called_again_on_resume() -> None:
    runs = IoRuns()
    definition = parse_definition(
        {
            "name": "hook",
            "steps": [{"id": "charge", "type": "tool_call", "toolName": "charge", "timeout": "1s"}],
        }
    )
    first = start_run(definition, run_id="r1", now=T0 - timedelta(minutes=5), user_id="ada")
    state = fold([first])
    assert state is not None
    started = decide(state, T0 - timedelta(minutes=5), pricing=PricingTable())
    runs.logs["r1"] = [first, *started.events]  # driver died 5 minutes ago, deadline long gone

    tool = ChargeTool()
    clock = FixedClock()
    runners = StepRunners(agents=None, tools=tool, skills=None, clock=clock)  # type: ignore[arg-type]
    ex = DagExecutor(
        runs=runs, runners=runners, clock=clock, pricing=PricingTable(), notify=lambda: None
    )
    ex.launch("r1")
    await ex.wait_idle()

    assert fold(runs.logs["r1"]).status == "error"  # type: ignore[union-attr]
    assert tool.calls == []  # its attempt had timed out before the resume


async def test_a_tool_step_still_in_time_is_called_again_on_resume() -> None:
    # The other side: what the log says is in flight, and may still run, is called again
    # (under the same key) once the resumed drive has written its first decision.
    runs = IoRuns()
    definition = parse_definition(TOOL)
    first = start_run(definition, run_id="r1", now=T0, user_id="ada")
    state = fold([first])
    assert state is not None
    started = decide(state, T0, pricing=PricingTable())
    runs.logs["r1"] = [first, *started.events]

    tool = ChargeTool()
    clock = FixedClock()
    runners = StepRunners(agents=None, tools=tool, skills=None, clock=clock)  # type: ignore[arg-type]
    ex = DagExecutor(
        runs=runs, runners=runners, clock=clock, pricing=PricingTable(), notify=lambda: None
    )
    ex.launch("r1")
    for _ in range(100):
        if tool.calls:
            break
        await asyncio.sleep(0.01)
    assert tool.calls == ["r1:charge:1"]
    await ex.stop()
