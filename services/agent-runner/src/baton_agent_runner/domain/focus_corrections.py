"""Which area matters most, changed after discovery has noted it or while it asks something
else: "actually health matters most, not work" sets the focus note; it declines no area, and
says nothing of what holds the user back."""

# ruff: noqa: RUF001, RUF002  (Russian text, docstrings too, is meant to be Cyrillic)

from __future__ import annotations

import re
from itertools import pairwise

from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.ranked_below import BELOW
from baton_agent_runner.domain.wording import normalised

_PARTS = re.compile(r"[,;.!?—–]")
# What opens a change of what was said: "actually", "wait", "no", "нет", "вообще-то".
_CORRECTING = re.compile(
    r"^\W*(?:actually|wait|no|nope|sorry|нет|вообще-то|на\s+самом\s+деле|точнее|хотя|стоп)\b"
    r"[\s,.!—–-]*",
    re.IGNORECASE,
)


def ranked_below(message: str) -> set[str]:
    """The areas a message that ranks one area first names after a bare "not" ("health
    matters most, not work", "главное здоровье, а не работа", "..., not work stress", "...,
    not work or my hobbies"): below the first, neither declined nor a fact of them ("not work"
    dropped the work fact; "not work or my hobbies" dropped it too and noted "my hobbies")."""
    if not followup.ranks(message):
        return set()
    below: set[str] = set()
    for part in _PARTS.split(normalised(message)):
        if hit := BELOW.match(part.strip()):
            below |= lang.areas_in(hit["rest"]).keys()
    return below


# What says what an area is: "finances is the mortgage", "финансы — это ипотека".
_DEFINED = re.compile(r"^(?P<head>[^:—–]+?)\s*(?:\b(?:is|are|means|это)\b|[:—–])")


def told_apart(message: str) -> set[str]:
    """The areas named after a bare "not" that follows what another area is ("finances is the
    mortgage and daycare costs, not work"): what that area's fact is not, no decline of them
    ("not work" took work out of the summary)."""
    apart: set[str] = set()
    parts = _PARTS.split(normalised(message))
    for said, part in pairwise(parts):
        hit, head = BELOW.match(part.strip()), _DEFINED.match(said.strip())
        defined = lang.areas_in(head["head"]).keys() if head else set()
        if hit and defined and followup.adds_nothing(hit["rest"]):
            apart |= lang.areas_in(hit["rest"]).keys() - defined
    return apart


def put_apart(message: str) -> set[str]:
    """The areas a message puts below another (`ranked_below`) or apart from what another is
    (`told_apart`): neither declined nor given a fact by it."""
    return ranked_below(message) | told_apart(message)


def corrects(message: str) -> bool:
    """Whether the message opens as a change of what was said ("actually ...", "нет, ...")."""
    return _CORRECTING.match(message) is not None


def new_focus(message: str, language: lang.Lang, notes: dict[str, str]) -> str | None:
    """The focus note a message gives when it ranks first an area other than the one the
    focus note holds, or any when there is none ("actually health matters most, not work"
    after "work"), without the words that open the change; None when it ranks none, or the
    same area again."""
    said = followup.volunteered(_CORRECTING.sub("", message, count=1), language).get("focus")
    if said is None:
        return None
    before = lang.areas_in(notes.get("focus", "")).keys()
    return None if before == lang.areas_in(said).keys() else said


def refocused(message: str, language: lang.Lang, notes: dict[str, str], pending: str) -> str | None:
    """The new focus note (`new_focus`) a message to the follow-up question `pending` gives
    instead of its answer: to "what holds you back?" unless it says that too, to another one
    when it opens as a change ("actually, family comes first"). "actually health matters
    most, not work" was kept as what holds the user back."""
    said = None if pending == "focus" else new_focus(message, language, notes)
    if said is None:
        return None
    # "family comes first, so no time for gym" answers it: the ranking says what holds back.
    holds_back = followup.holds_back(message)
    return said if corrects(message) or (pending == "constraints" and not holds_back) else None
