"""`bench.measure.sequential_after_work`: other work before each op, left out of the op's
figures, and the reference case's row that uses it."""

from __future__ import annotations

import itertools
import time

from bench.measure import sequential_after_work
from bench.reference import OTHER_WORK_MS, bare_agent_run
from bench.registry import Options


async def test_the_other_work_comes_before_each_op_and_is_not_counted_as_its_cpu() -> None:
    starts: list[float] = []

    async def op(_: int) -> None:
        starts.append(time.perf_counter())

    row, cpu = await sequential_after_work("x", 3, op, 0.02)

    assert row.ops == 3
    assert all(later - earlier >= 0.02 for earlier, later in itertools.pairwise(starts))
    # 60 ms of spinning ran in this process; the ops themselves did next to nothing.
    assert cpu < 0.02


async def test_the_reference_case_reports_the_run_after_other_work_against_back_to_back() -> None:
    rows = await bare_agent_run(Options(quick=True))

    labels = [row.label for row in rows]
    assert labels == [
        "agent.run(), default tool output",
        "agent.run(), NativeOutput",
        f"agent.run(), NativeOutput, after {OTHER_WORK_MS:g} ms of other work",
    ]
    assert rows[2].ops == 50
    assert "x the same run back to back" in rows[2].note
