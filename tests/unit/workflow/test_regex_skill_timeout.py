"""regex-extract gives up at the step's timeout, and the service runs meanwhile.

Matched with `re` in a worker thread, `(a|aa)+$` on sixty `a`s and a `!` held the interpreter
for ever: the step's timeout never fired, and the whole workflow service stopped answering
every user (found by a probe of the DAG tools)."""

from __future__ import annotations

import asyncio

import pytest

from baton_workflow.adapters.skills import build_skills
from baton_workflow.service.step_ports import StepTimedOut

BACKTRACKS_FOR_EVER = ["a" * 60 + "!", "(a|aa)+$"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("every", [False, True])
async def test_a_pattern_that_backtracks_without_end_times_out_as_the_loop_runs(
    every: bool,
) -> None:
    ticks = 0

    async def ticking() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    ticker = asyncio.create_task(ticking())
    args = BACKTRACKS_FOR_EVER + (["--all"] if every else [])
    with pytest.raises(StepTimedOut) as caught:
        await build_skills().run("regex-extract", args, timeout=0.5)
    ticker.cancel()
    assert caught.value.message == "regex-extract: no result within 0.5s"
    assert ticks > 1  # the event loop ran during the match: it held nothing


async def test_the_skill_still_matches_after_one_was_cut_off() -> None:
    skills = build_skills()
    with pytest.raises(StepTimedOut):
        await skills.run("regex-extract", BACKTRACKS_FOR_EVER, timeout=0.3)
    result = await skills.run("regex-extract", ["order 42, order 7", r"\d+", "--all"], timeout=30)
    assert result.output == "42\n7"
    assert result.data == {"matched": True, "matches": ["42", "7"]}
