"""Reading a self-correction ("health i think... no wait, work"): what it takes back, what it
names as taken back ("no wait, not family"), and the area it swaps in."""

# ruff: noqa: RUF001  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.area_clauses import mentioned, named_areas
from baton_agent_runner.domain.areas import CORRECTION, SENTENCE_END, around, named_in
from baton_agent_runner.domain.wording import normalised

_MOST_CORRECTIONS = 20
"""The self-corrections of one message that are read, first first: each reads the text before
and after it, and a message of a thousand ("no wait, no wait, ...") took minutes. People make
one or two."""


def corrected(text: str) -> str:
    """The text as the user meant it: what a self-correction takes back left out ("health i
    think... no wait, work": "work"; "family, health... no wait, work": "family, work";
    `areas.CORRECTION` says which and how far back). The
    text as it is when it takes nothing back ("work, i mean it", "no wait, I'm not done")."""
    start, taken = 0, False
    for _ in range(_MOST_CORRECTIONS):
        if (found := CORRECTION.search(normalised(text), start)) is None:
            break
        back = _taken_back(text, found)
        if back is None:
            start = found.end()
            continue
        joint = " " if back and not text[back - 1].isspace() else ""  # "family, work"
        text = text[:back] + joint + text[found.end() :]
        start, taken = back, True
    return _once_each(text) if taken else text


def _once_each(text: str) -> str:
    """A corrected text without an item said again right after itself: "work, health... no
    wait, work, family" is "work, family", not a fact "work, work"."""
    items = text.split(",")
    kept = [item for i, item in enumerate(items) if not i or _differs(item, items[i - 1])]
    return ",".join(kept)


def _differs(item: str, before: str) -> bool:
    """Whether `item` differs from the `before` it follows (as words, case aside)."""
    return item.strip(_NO_WORDS).casefold() != before.strip(_NO_WORDS).casefold()


def _taken_back(text: str, marker: re.Match[str]) -> int | None:
    """Where what the self-correction `marker` takes back starts: its sentence's start (or the
    sentence before, for a strong marker opening its own); None when it takes nothing back."""
    if said_back(text, marker):
        return marker.start()  # "work and family. no wait, not family, health": family alone
    after = text[marker.end() :]
    meant = set(named_areas(after[: _sentence_end(after)]))
    ends = [end.end() for end in SENTENCE_END.finditer(text, 0, marker.start())]
    back = ends[-1] if ends else 0
    if not text[back : marker.start()].strip(_NO_WORDS) and marker["strong"] and ends:
        back = ends[-2] if len(ends) > 1 else 0  # "Health. No wait, work."
    before = text[back : marker.start()]
    if not meant:
        return None
    if not before.strip(_NO_WORDS):  # the marker alone, when it opens the text ("Нет, стоп, ...")
        return None if text[: marker.start()].strip(_NO_WORDS) else marker.start()
    if marker["vague"] and meant <= named_in(before):
        return None  # "работа и здоровье, точнее сон": what health is
    if named_in(before) and not named_areas(before):
        # "not health, I meant hobbies": what comes before says no already; taken back, the
        # "not health" went with it, and the health fact stayed.
        return None
    return _last_item(text, back, marker.start())


# "not family", "не семья" right after a self-correction: the areas it takes back, named.
_NOT_AREA = re.compile(
    r"[\s,]*(?:not|не)\s+(?P<said>[^,.;:!?—–\n]+?)\s*(?=[,.;:!?—–\n]|\s+(?:а|but)\s|$)",
    re.IGNORECASE,
)


def said_back(text: str, marker: re.Match[str]) -> set[str]:
    """The areas a self-correction names as those it takes back ("no wait, not family", "нет,
    стоп, не семья", "хотя нет, работа не так важна"), of those said before it; none when it
    names none of them."""
    said = _NOT_AREA.match(text, marker.end())
    if said is not None and around(said["said"]) == ([], []):
        areas = named_in(said["said"])
    else:
        areas = _declined_next(text, marker.end())
    return areas if areas and areas <= named_in(text[: marker.start()]) else set()


_PART_AFTER = re.compile(r"[\s,]*(?P<part>[^,.;:!?—–\n]+)")


def _declined_next(text: str, at: int) -> set[str]:
    """The areas the part after a self-correction only says do not matter ("work isn't that
    important", "работа не так важна"): "work and health. actually no, work isn't that
    important, family is" took back health too, and kept family alone."""
    part = _PART_AFTER.match(text, at)
    said = mentioned(part["part"]) if part else []
    if not said or any(kind != "declined" for *_, kind in said):
        return set()
    return {area for area, *_ in said}


def _last_item(text: str, back: int, marker: int) -> int:
    """Where the last item before a self-correction starts, of a list of several between `back`
    and the `marker`: the correction takes back what was said last ("family, health i think...
    no wait, work" is family and work), an item naming an area; `back` when there is one."""
    said = text[back:marker].rstrip(_NO_WORDS)
    for start in reversed([found.end() for found in _ITEM_SEPARATOR.finditer(said)]):
        if named_areas(said[start:]):
            return back + start
    return back


_ITEM_SEPARATOR = re.compile(r"[,;]|\s[—–-]\s")
"""Between the items of a list, as a correction reads back: "and"/"и" join what it takes back
together ("health and hobbies, scratch that, work" is work's alone)."""


_NO_WORDS = " ,.:;!?-—–…\n"


def _sentence_end(text: str) -> int:
    end = SENTENCE_END.search(text)
    return len(text) if end is None else end.start()


# The words a correction puts before or after the area it swaps in: "no, not finances,
# replace it with health" kept "replace it with health", "нет, убери финансы, лучше здоровье"
# "лучше здоровье". Read only of a correction ("лучше здоровье" alone may be the goal).
_SWAP_LEAD = re.compile(
    r"^(?:(?:replace|swap|change)\s+(?:it|that|this)\s+(?:with|for|to)|replace\s+with"
    r"|put|make\s+it|instead|rather|лучше|вместо\s+(?:этого|него|нее|неё)"
    r"|(?:замени|поменяй)(?:\s+(?:это|его|ее|их))?\s+на|а\s+лучше)\b[\s,:—–-]*",
    re.IGNORECASE,
)
# Searched by `sub`: it starts only where a run of commas and spaces starts, and gives none
# of it back, or each comma of a run read the rest of it again (8,000 commas: 2.4 s a part).
_SWAP_TAIL = re.compile(
    r"(?<![\s,])[\s,]++(?:instead|rather|вместо\s+(?:этого|него|нее|неё))[.!]*+$", re.IGNORECASE
)


def swapped_in(part: str) -> str:
    """The area a correction swaps in without the correction's own words ("health")."""
    kept = _SWAP_TAIL.sub("", _SWAP_LEAD.sub("", part.strip()))
    return kept or part
