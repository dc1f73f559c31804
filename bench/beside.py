"""A target row with the host's speed timed beside it, for reading it on the issues' hardware.

The references of a run (`reference.pydantic_ai`, `reference.langgraph`) are cases of their
own, run minutes before or after the target rows, and these hosts change speed within minutes:
in one run the 50-instance transition row took the same CPU per transition as twenty minutes
earlier while the references, run later, found the host 1.5 times as slow, so the row read
as 2,000 transitions/s on the issues' hardware. Here the bench process times issue 4's bare
`agent.run()` just before a target row's trials and just after them, with the platform idle,
and the row keeps the average (`Row.agent_run_ms`); `bench.scaled` reads the row by it too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Literal

from bench.measure import median_of
from bench.reference import agent_run_cpu_ms, native_agent
from bench.registry import Options, Row

RUNS, QUICK_RUNS = 300, 20
"""`agent.run()`s timed on each side of a row: about a second on these hosts."""


async def median_beside(
    opts: Options, measure: Callable[[], Awaitable[Row]], by: Literal["ops_per_s", "p50_ms"]
) -> tuple[Row, dict[str, float], str]:
    """`median_of` the row's trials, with `agent.run()` timed before and after them: the row
    (its `agent_run_ms` set), the median trial's CPU seconds per process, and the note, which
    gives both timings."""
    agent = native_agent()
    runs = opts.size(RUNS, QUICK_RUNS)
    await agent_run_cpu_ms(agent, min(runs, 50))  # the first runs build what it caches
    before = await agent_run_cpu_ms(agent, runs)
    row, cpu, note = await median_of(opts.target_trials, measure, by)
    after = await agent_run_cpu_ms(agent, runs)
    note += f"; agent.run() beside it: {before:.2f} ms before, {after:.2f} ms after"
    return replace(row, agent_run_ms=round((before + after) / 2, 3)), cpu, note
