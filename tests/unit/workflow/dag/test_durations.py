"""Go durations: the format of timeout, retryDelay and delay."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from baton_workflow.domain.dag.durations import DurationError, format_duration, parse_duration


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
