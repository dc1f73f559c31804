"""An area the user lacks time for, said to "what holds you back: time, energy, something
else?": "family comes first, so no time for gym", "нет времени на спорт". That is what holds
the user back, the answer asked for: the area stays a priority. Read as anywhere else ("I
have no time for hobbies": no hobbies), it took health out of the summary."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.wording import normalised

# "no time for", "not enough time for", "don't have (the) time for", "нет времени на", "не
# хватает времени на"; the area up to the end of its phrase.
_NO_TIME_FOR = re.compile(
    r"\b(?:no|not\s+enough|never\s+(?:have|get)(?:\s+the)?"
    r"|(?:do\s*n'?t|can'?t)\s+(?:have|get|find)(?:\s+(?:the|any|enough))?|нет|не\s+хватает)\s+"
    r"(?:(?:time|времени)\s+(?:for|to|на|для)|времени\s+(?:заниматься|ходить\s+в))"
    r"\s+(?P<rest>[^,.;:!?—–]+)",
    re.IGNORECASE,
)


def lacked_time_for(message: str) -> set[str]:
    """The areas the message says the user has no time for ("no time for gym")."""
    return {
        area
        for hit in _NO_TIME_FOR.finditer(normalised(message))
        for area in lang.areas_in(hit["rest"])
    }
