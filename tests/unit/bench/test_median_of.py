"""`bench.measure.median_of`: the median trial decides a target row, with every trial named."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bench.measure import median_of
from bench.registry import Options, Row


def _trials(*rows: Row) -> Callable[[], Awaitable[Row]]:
    """A measure that returns the given rows in turn."""
    queue = list(rows)

    async def measure() -> Row:
        return queue.pop(0)

    return measure


def _row(per_s: float, p50: float = 1.0) -> Row:
    return Row(label="x", ops=100, ops_per_s=per_s, p50_ms=p50)


COLD = _row(1, p50=99.0)  # the warm-up run: never counted


async def test_the_median_trial_by_rate_is_reported_with_every_trial_in_run_order() -> None:
    trials = _trials(COLD, _row(241), _row(297), _row(274))
    row, _cpu, note = await median_of(3, trials, "ops_per_s")
    assert row.ops_per_s == 274
    assert note == "; median of 3 trials after a warm-up run (241, 297, 274 ops/s)"


async def test_the_median_trial_by_p50_is_the_middle_latency() -> None:
    rows = COLD, _row(100, p50=7.0), _row(100, p50=9.5), _row(100, p50=8.0)
    row, _cpu, note = await median_of(3, _trials(*rows), "p50_ms")
    assert row.p50_ms == 8.0
    assert note == "; median of 3 trials by p50 after a warm-up run (7.00, 9.50, 8.00 ms)"


async def test_the_warm_up_run_decides_nothing() -> None:
    """However slow the first run is, the trials after it are the ones reported."""
    row, _cpu, note = await median_of(
        3, _trials(_row(5), _row(300), _row(310), _row(320)), "ops_per_s"
    )
    assert row.ops_per_s == 310
    assert "(300, 310, 320 ops/s)" in note


async def test_one_trial_adds_no_note_and_slow_rates_keep_a_decimal() -> None:
    row, _cpu, note = await median_of(1, _trials(_row(33.4)), "ops_per_s")
    assert (row.ops_per_s, note) == (33.4, "")
    trials = _trials(COLD, _row(33.4), _row(30), _row(35))
    _, _, note = await median_of(3, trials, "ops_per_s", "runs/s")
    assert note == "; median of 3 trials after a warm-up run (33.4, 30.0, 35.0 runs/s)"


@pytest.mark.parametrize("trials", [0, 2, -1])
async def test_an_even_or_non_positive_trial_count_is_refused(trials: int) -> None:
    with pytest.raises(ValueError, match="trials: must be a positive odd number"):
        await median_of(trials, _trials(), "ops_per_s")


def test_quick_mode_runs_a_target_row_once() -> None:
    assert Options(quick=True, trials=5).target_trials == 1
    assert Options(trials=5).target_trials == 5
