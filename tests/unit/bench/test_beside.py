"""`bench.beside.median_beside`: a target row keeps the host's speed timed around its trials."""

from __future__ import annotations

from bench.beside import median_beside
from bench.registry import Options, Row


async def test_the_row_keeps_agent_run_timed_before_and_after_its_trials() -> None:
    measured: list[int] = []

    async def measure() -> Row:
        measured.append(1)
        return Row(label="x", ops=10, ops_per_s=100.0, p50_ms=1.0)

    row, _cpu, note = await median_beside(Options(quick=True), measure, "ops_per_s")

    assert len(measured) == 1  # quick: one trial, no warm-up
    assert row.agent_run_ms is not None and row.agent_run_ms > 0
    assert "; agent.run() beside it: " in note and " ms before, " in note and " ms after" in note
