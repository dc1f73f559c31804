"""Go durations: the format of timeout, retryDelay and delay."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from baton_workflow.domain.dag.durations import (
    MAX_DURATION,
    DurationError,
    bounded_duration,
    format_duration,
    later,
    parse_duration,
    scaled,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("300ms", timedelta(milliseconds=300)),
        ("1.5h", timedelta(minutes=90)),
        ("2h45m", timedelta(hours=2, minutes=45)),
        ("10s", timedelta(seconds=10)),
        ("30m", timedelta(minutes=30)),
        ("1h30m15s", timedelta(hours=1, minutes=30, seconds=15)),
        ("1500us", timedelta(microseconds=1500)),
        ("1500µs", timedelta(microseconds=1500)),
        ("2000000ns", timedelta(milliseconds=2)),
        (".5s", timedelta(milliseconds=500)),
        ("0", timedelta(0)),
        ("0s", timedelta(0)),
    ],
)
def test_go_durations_parse(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty duration"),
        ("5", 'invalid duration "5": missing unit after "5"'),
        ("-1s", 'duration "-1s" cannot have a sign'),
        ("+1s", 'duration "+1s" cannot have a sign'),
        ("1d", 'invalid duration "1d": unknown unit "d"'),
        ("10s5", 'invalid duration "10s5": missing unit after "5"'),
        ("abc", 'invalid duration "abc": expected a number at "abc"'),
        ("1h 30m", 'unknown unit "h "'),
    ],
)
def test_bad_durations_say_why(text: str, message: str) -> None:
    with pytest.raises(DurationError, match=re.escape(message)):
        parse_duration(text)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (timedelta(minutes=90), "1h30m"),
        (timedelta(seconds=45), "45s"),
        (timedelta(milliseconds=250), "250ms"),
        (timedelta(seconds=1.5), "1.5s"),
        (timedelta(0), "0ms"),
    ],
)
def test_format_duration_reads_back(value: timedelta, text: str) -> None:
    assert format_duration(value) == text
    assert parse_duration(text) == value


def test_the_longest_duration_is_gos() -> None:
    longest = parse_duration("2562047h47m16.854775807s")
    assert longest == MAX_DURATION == timedelta(microseconds=(2**63 - 1) // 1000)
    assert parse_duration("9223372036854775807ns") == MAX_DURATION


@pytest.mark.parametrize(
    "text",
    [
        "2562047h47m16.854775808s",  # one nanosecond more
        "2562048h",
        "100000000h",
        "99999999999999999999h",
        "9" * 5000 + "h",  # more digits than int() reads by default
        "1h" * 3_000_000,  # each part fits, the sum does not
    ],
)
def test_a_duration_longer_than_gos_longest_is_refused_naming_the_limit(text: str) -> None:
    with pytest.raises(DurationError, match=r"too long: the longest is 2562047h47m16\.854775807s"):
        parse_duration(text)


def test_a_long_fraction_is_read_to_the_nanosecond() -> None:
    assert parse_duration("1." + "5" * 5000 + "s") == timedelta(microseconds=1_555_555)


def test_a_stored_duration_over_the_limit_reads_as_the_limit() -> None:
    assert bounded_duration("100000000h") == MAX_DURATION
    assert bounded_duration("30s") == timedelta(seconds=30)


def test_scaled_and_later_never_overflow() -> None:
    assert scaled(timedelta(seconds=10), 2.0) == timedelta(seconds=20)
    assert scaled(timedelta(seconds=10), 1e300) == MAX_DURATION
    assert scaled(timedelta(seconds=10), float("inf")) == MAX_DURATION
    assert scaled(timedelta(0), float("inf")) == timedelta(0)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert later(now, timedelta(hours=1)) == datetime(2026, 1, 1, 1, tzinfo=UTC)
    assert later(datetime(9800, 1, 1, tzinfo=UTC), MAX_DURATION) == datetime.max.replace(tzinfo=UTC)
