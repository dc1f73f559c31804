"""A tool_call step hands its attempt's idempotency key to the tool it calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton_workflow.adapters.clock import SystemClock
from baton_workflow.domain.dag.actions import CallTool
from baton_workflow.service.dag_steps import StepRunners
from baton_workflow.service.step_ports import ToolResult


class RecordingTools:
    def __init__(self) -> None:
        self.keys: list[str] = []

    def names(self) -> list[str]:
        return ["post"]

    def check(self, name: str, inputs: Mapping[str, str]) -> list[str]:
        return []

    async def call(
        self, name: str, inputs: Mapping[str, str], *, timeout: float, idempotency_key: str = ""
    ) -> ToolResult:
        self.keys.append(idempotency_key)
        return ToolResult(output="done")


async def test_a_tool_step_calls_its_tool_with_the_attempts_key() -> None:
    tools = RecordingTools()
    runners: Any = StepRunners(agents=None, tools=tools, skills=None, clock=SystemClock())  # type: ignore[arg-type]
    call = CallTool(
        run_id="r1", step_id="post", attempt=2, idempotency_key="r1:post:2", tool_name="post"
    )
    for _ in range(2):  # the same attempt again, as after a restart
        event = await runners.perform(call, "u")
        assert event.output == "done"
    assert tools.keys == ["r1:post:2", "r1:post:2"]
