"""The issues' own yardstick, measured here: one bare PydanticAI `agent.run()`.

Issue 4 gives its cost on the hardware its targets were set on: about 2.2 ms with the default
tool output and 1.7 ms with `NativeOutput`, for a function model. The same run timed on this
machine says how this machine compares with that one; every agent turn and agent step of the
platform runs one, so it also bounds issues 4 and 6 from below.
"""

from __future__ import annotations

import time
from dataclasses import replace

from pydantic_ai import Agent, NativeOutput
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from baton_agent_runner.domain.output import AgentOutput
from bench.measure import sequential, sequential_after_work
from bench.registry import Options, Row, case

# Issue 4: "one PydanticAI agent.run() with a function model costs about 2.2 ms with the
# default tool output and 1.7 ms with NativeOutput", on the hardware of the targets.
ISSUE_MS = {"default tool output": 2.2, "NativeOutput": 1.7}
OTHER_WORK_MS = 5.0  # between two runs: about what a process of a one-at-a-time turn waits
_OUTPUT = AgentOutput(message="Hello! Shall we begin?")


async def _answer(_: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if info.output_tools:
        tool = info.output_tools[0].name
        return ModelResponse(parts=[ToolCallPart(tool, _OUTPUT.model_dump(mode="json"))])
    return ModelResponse(parts=[TextPart(_OUTPUT.model_dump_json())])


def native_agent() -> Agent[None, AgentOutput]:
    """The bare agent issue 4 times at 1.7 ms a run on its hardware: a function model,
    `NativeOutput`."""
    output = NativeOutput(AgentOutput)
    return Agent(FunctionModel(_answer), output_type=output, instructions="Greet the user.")


async def run_once(agent: Agent[None, AgentOutput]) -> None:
    """One `agent.run()`, the yardstick's; it must have answered."""
    result = await agent.run("hello there")
    assert result.output.message


async def agent_run_cpu_ms(agent: Agent[None, AgentOutput], runs: int) -> float:
    """CPU ms per `agent.run()` of `agent`, over `runs` back-to-back runs in this process."""
    cpu = time.process_time()
    for _ in range(runs):
        await run_once(agent)
    return (time.process_time() - cpu) * 1000 / runs


@case("reference.pydantic_ai", "the issues' yardstick: one bare PydanticAI agent.run()")
async def bare_agent_run(options: Options) -> list[Row]:
    rows = []
    default = Agent(FunctionModel(_answer), output_type=AgentOutput, instructions="Greet the user.")
    for label, agent in (("default tool output", default), ("NativeOutput", native_agent())):

        async def run(_: int, agent: Agent[None, AgentOutput] = agent) -> None:
            await run_once(agent)

        await sequential("warm-up", options.size(200, 20), run)
        cpu = time.process_time()
        row = await sequential(f"agent.run(), {label}", options.size(2000, 100), run)
        cpu_ms = (time.process_time() - cpu) * 1000 / row.ops
        issue = ISSUE_MS[label]
        note = (
            f"CPU ms per run: {cpu_ms:.2f}; issue 4 measured {issue} on its hardware, so this "
            f"machine is {cpu_ms / issue:.2f}x as slow"
        )
        rows.append(replace(row, note=note))
        if label == "NativeOutput":
            native = agent, cpu_ms
    rows.append(await _after_other_work(*native, options))
    return rows


async def _after_other_work(
    agent: Agent[None, AgentOutput], back_to_back_ms: float, options: Options
) -> Row:
    """The `NativeOutput` run again, after `OTHER_WORK_MS` of other work each time: what this
    machine charges code that does not run back to back, as each process of a chat turn one at
    a time does. The issues' references are all timed back to back."""

    async def run(_: int) -> None:
        await run_once(agent)

    label = f"agent.run(), NativeOutput, after {OTHER_WORK_MS:g} ms of other work"
    row, cpu = await sequential_after_work(label, options.size(1000, 50), run, OTHER_WORK_MS / 1000)
    cpu_ms = cpu * 1000 / row.ops
    note = (
        f"CPU ms per run: {cpu_ms:.2f}, {cpu_ms / back_to_back_ms:.2f}x the same run back to "
        f"back; ops/s counts the other work too"
    )
    return replace(row, note=note)
