"""Go duration strings ("300ms", "1.5h", "2h45m"), as the workflow JSON writes timeouts and delays.

Baton accepts Go's format without a sign: a duration is never negative. Precision stops at the
microsecond (what `timedelta` holds), so "1ns" parses but is zero.
"""

from __future__ import annotations

import re
from datetime import timedelta

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


class DurationError(ValueError):
    """A string is not a valid Go duration; the message says what is wrong."""


def parse_duration(text: str) -> timedelta:
    """The timedelta a Go duration string means; DurationError with the reason otherwise."""
    if not isinstance(text, str) or text == "":
        raise DurationError('empty duration; write a number and a unit, e.g. "30s", "5m", "1h"')
    if text[0] in "+-":
        raise DurationError(f'duration "{text}" cannot have a sign; durations are never negative')
    if text == "0":
        return timedelta(0)
    return timedelta(microseconds=_nanoseconds(text) // 1_000)


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
        total += int(whole or "0") * scale
        if fraction:
            total += int(fraction) * scale // 10 ** len(fraction)
        position = match.end()
    return total


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
