"""Go duration strings ("300ms", "1.5h", "2h45m"), as the workflow JSON writes timeouts and delays.

Baton accepts Go's format without a sign: a duration is never negative. Precision stops at the
microsecond (what `timedelta` holds), so "1ns" parses but is zero. Like Go, a duration is at
most 2562047h47m16.854775807s (2^63 - 1 nanoseconds, about 292 years): anything longer is
refused, so no timer or deadline computed from a duration can overflow.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_UNIT_NS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5 micro sign
    "μs": 1_000,  # U+03BC greek mu, also accepted by Go
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
_PART = re.compile(r"(\d*)(?:\.(\d*))?([^\d.]*)")
UNITS_HELP = "ns, us, µs, ms, s, m, h"
MAX_NANOSECONDS = 2**63 - 1
MAX_DURATION_TEXT = "2562047h47m16.854775807s"
MAX_DURATION = timedelta(microseconds=MAX_NANOSECONDS // 1_000)
"""Go's longest duration (`time.Duration` is an int64 of nanoseconds), as `timedelta` holds it."""
_FRACTION_DIGITS = 30  # digits past these change the total by far less than a nanosecond


class DurationError(ValueError):
    """A string is not a valid Go duration; the message says what is wrong."""


class DurationTooLong(DurationError):
    """A well-formed duration longer than Go's longest, `MAX_DURATION_TEXT`."""


def parse_duration(text: str) -> timedelta:
    """The timedelta a Go duration string means; DurationError with the reason otherwise."""
    if not isinstance(text, str) or text == "":
        raise DurationError('empty duration; write a number and a unit, e.g. "30s", "5m", "1h"')
    if text[0] in "+-":
        raise DurationError(f'duration "{text}" cannot have a sign; durations are never negative')
    if text == "0":
        return timedelta(0)
    return timedelta(microseconds=_nanoseconds(text) // 1_000)


def bounded_duration(text: str) -> timedelta:
    """`parse_duration`, except that a duration over the limit is the limit.

    A run started before the limit existed has its definition in its log, unchecked against
    the limit; its timers and deadlines must still not fail on arithmetic.
    """
    try:
        return parse_duration(text)
    except DurationTooLong:
        return MAX_DURATION


def scaled(base: timedelta, factor: float) -> timedelta:
    """`base * factor` for a factor >= 0, but at most `MAX_DURATION` (an infinite factor too)."""
    if not base:
        return base
    if factor <= MAX_DURATION / base:
        return min(base * factor, MAX_DURATION)
    return MAX_DURATION


def later(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta`, or the last moment a datetime can hold when that is past it."""
    last = datetime.max.replace(tzinfo=moment.tzinfo)
    return moment + delta if delta <= last - moment else last


def _nanoseconds(text: str) -> int:
    total, position = 0, 0
    while position < len(text):
        match = _PART.match(text, position)
        assert match is not None  # the pattern matches the empty string
        whole, fraction, unit = match.groups()
        if not whole and not fraction:
            raise DurationError(
                f'invalid duration "{text}": expected a number at "{text[position:]}"'
            )
        if not unit:
            raise DurationError(
                f'invalid duration "{text}": missing unit after "{match.group(0)}" ({UNITS_HELP})'
            )
        if unit not in _UNIT_NS:
            raise DurationError(f'invalid duration "{text}": unknown unit "{unit}" ({UNITS_HELP})')
        scale = _UNIT_NS[unit]
        whole = whole.lstrip("0")
        if len(whole) > len(str(MAX_NANOSECONDS)):  # also spares int() a huge string
            raise DurationTooLong(_too_long(text))
        total += int(whole or "0") * scale
        if fraction:
            fraction = fraction[:_FRACTION_DIGITS]
            total += int(fraction) * scale // 10 ** len(fraction)
        if total > MAX_NANOSECONDS:
            raise DurationTooLong(_too_long(text))
        position = match.end()
    return total


def _too_long(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return f'duration "{shown}" is too long: the longest is {MAX_DURATION_TEXT} (about 292 years)'


def format_duration(value: timedelta) -> str:
    """A short Go-style rendering ("1h30m", "45s", "250ms") for messages."""
    micros = value // timedelta(microseconds=1)
    if micros < 1_000_000:
        return f"{micros // 1000}ms" if micros % 1000 == 0 else f"{micros}us"
    seconds, rest = divmod(micros, 1_000_000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    if seconds or rest or not text:
        text += f"{seconds}.{rest:06d}".rstrip("0").rstrip(".") + "s"
    return text
