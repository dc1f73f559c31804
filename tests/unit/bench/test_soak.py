"""The soak's reading of a process's memory: a least-squares trend, and what it says of it."""

from __future__ import annotations

import pytest

from bench.soak import Reading, _note, slope


def test_the_slope_of_points_on_a_line_is_exact() -> None:
    b, error = slope([(0, 100.0), (1_000, 101.0), (2_000, 102.0), (3_000, 103.0)])
    assert b == pytest.approx(0.001)
    assert error == pytest.approx(0.0)


def test_a_single_high_checkpoint_weighs_less_than_end_minus_start() -> None:
    b, _ = slope([(0, 100.0), (1_000, 100.0), (2_000, 100.0), (3_000, 106.0)])
    assert 0 < b * 3_000 < 6.0


def _marks(rss: list[float]) -> list[tuple[int, dict[str, Reading]]]:
    return [(2_000 + 1_000 * i, {"gateway": Reading(r, 5, 35)}) for i, r in enumerate(rss)]


def test_memory_that_only_wobbles_reads_as_bounded() -> None:
    note = _note("gateway", _marks([70.0, 70.4, 69.9, 70.2, 70.0, 70.3, 69.9, 70.1]))
    assert "looks bounded" in note


def test_memory_that_keeps_rising_reads_as_growing_with_its_rate() -> None:
    note = _note("gateway", _marks([70.0 + 0.5 * i for i in range(8)]))
    assert "growth per 10,000 turns: +5.0 MiB" in note
    assert "still growing at the end" in note


def test_memory_that_rose_then_stayed_says_so() -> None:
    note = _note("gateway", _marks([70, 72, 74, 76, 78, 78, 78.1, 78, 78.1, 78]))
    assert "rose early, flat over the last half" in note
