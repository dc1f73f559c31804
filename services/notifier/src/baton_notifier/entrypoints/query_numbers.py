"""A whole number in a query string, written the one way a URL writer means it: digits.

`int()` reads more than that (`limit=1_0` was 10, `limit=+1` and `limit= 1` were 1), so a
typo or a value built by string pasting reached the owner as some other number. A minus sign
is let through to the bounds, whose message ("greater than or equal to 1") says more.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

_WRITTEN_IN_DIGITS = re.compile(r"-?[0-9]+")
SHOWN_CHARS = 40


def _written_in_digits(value: object) -> object:
    if isinstance(value, str) and not _WRITTEN_IN_DIGITS.fullmatch(value):
        shown = repr(value[:SHOWN_CHARS])
        raise PydanticCustomError(
            "whole_number",
            "must be a whole number written in digits 0-9, got {got}",
            {"got": shown},
        )
    return value


WholeNumber = Annotated[int, BeforeValidator(_written_in_digits)]
"""An `int` query parameter that is refused unless written as ASCII digits (a leading `-`
is left to its bounds)."""
