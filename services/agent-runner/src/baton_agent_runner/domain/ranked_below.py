"""Areas put below the one ranked first with a bare "not": "health matters most, not work",
"главное здоровье, а не работа". They say which area is first, and are no part of a note of
it: the focus note kept "not work", as if work were what matters."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.areas import NAMES_ONLY, OWNING
from baton_agent_runner.domain.wording import normalised, words

BELOW = re.compile(r"^(?:(?:а|и|но|and|but)\s+)?(?:not|не)\s+(?P<rest>\S.*)$")
"""A part that puts an area below: "not work", "а не работа", "но не семья" (normalised)."""

# The last part of a ranking, when it puts an area below: ", not work", ", а не работа".
_TAIL = re.compile(r"\s*(?:[,;—–]|\s-\s)(?P<part>[^,;.!?—–]*?)[\s.!]*$")
_JOINING = frozenset({"or", "and", "nor", "или", "и", "ни"})


def without_areas_below(said: str) -> str:
    """`said` without its last part when that only puts areas below ("health matters most,
    not work or my hobbies": "health matters most"); as it is when the part says more of them
    ("not work stress") or there is nothing before it."""
    tail = _TAIL.search(said)
    if tail is None or not said[: tail.start()].strip():
        return said
    below = BELOW.match(normalised(tail["part"]).strip())
    if below is None or not lang.areas_in(below["rest"]) or not _names_only(below["rest"]):
        return said
    return said[: tail.start()].rstrip()


def _names_only(said: str) -> bool:
    """Whether `said` is only area names, whose they are and "or"/"и" between them."""
    return all(
        NAMES_ONLY.fullmatch(word) or word in OWNING or word in _JOINING for word in words(said)
    )


def names_one_area(said: str) -> bool:
    """Whether `said` names one area besides those its last part puts below ("health matters
    most, not work or my hobbies" names health alone; it was no ranking of one area)."""
    return len(lang.areas_in(without_areas_below(said))) == 1
