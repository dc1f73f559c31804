"""An area named as a label before a colon or dash ("hobbies: learning to cook", "хобби —
учусь готовить"): the user has said which area the words after it are of. "learning" named
growth there too, and "hobbies: learning to cook" became the growth fact as well."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.areas import NAMES_ONLY, OWNING, named_in
from baton_agent_runner.domain.wording import normalised, words

# The head of a clause before its colon or dash (lowercase, `normalised`).
_LABEL = re.compile(r"^\s*(?P<head>[^:—–]+?)\s*(?::|\s-\s|\s*[—–])")
_JOINING = frozenset({"and", "or", "и", "или", "а"})


def label(lowered: str) -> tuple[set[str], int] | None:
    """The areas a clause's label names, and where the words after it start; None when the
    clause opens with no label of area names alone ("my hobbies:", "работа и здоровье —";
    not "I love learning: ...")."""
    hit = _LABEL.match(lowered)
    if hit is None:
        return None
    said = words(hit["head"])
    if not said or not all(
        NAMES_ONLY.fullmatch(word) or word in OWNING or word in _JOINING for word in said
    ):
        return None
    areas = named_in(hit["head"])
    return (areas, hit.end()) if areas else None


def label_span(lowered: str) -> tuple[set[str], int, int] | None:
    """The areas a clause's label names, and the span of the words it labels: from after the
    label up to the next part with a label or an area name of its own; None with no label."""
    found = label(lowered)
    if found is None:
        return None
    areas, end = found
    until = next(
        (part.start() for part in _NEXT_PART.finditer(lowered, end) if _opens_anew(part["rest"])),
        len(lowered),
    )
    return areas, end, until


def labelled(lowered: str, starts: dict[str, list[int]]) -> dict[str, list[int]]:
    """`starts` (where each area's words stand in the clause) without the words of other
    areas after a label, up to the next part with a label of its own: "hobbies: learning to
    cook" names hobbies alone; "работа — мой стартап, здоровье — бегаю" names both."""
    found = label_span(lowered)
    if found is None:
        return starts
    areas, end, until = found
    return {
        area: [at for at in ats if area in areas or not end <= at < until]
        for area, ats in starts.items()
    }


_NEXT_PART = re.compile(r"[,;](?P<rest>[^,;]*)")


def _opens_anew(part: str) -> bool:
    """Whether a part after a label's words opens another area's: with a label of its own
    ("здоровье — бегаю"), or with an area's name ("здоровье и семья важнее всего"); not with
    a kind of area ("hobbies: reading, learning guitar" keeps guitar the hobby's)."""
    said = [word for word in words(part) if word not in OWNING]
    return label(part) is not None or bool(said and NAMES_ONLY.fullmatch(said[0]))


def labelled_part(clause: str, area: str, hid: bool) -> str | None:
    """The clause up to the end of what a label of `area` alone labels, when the label hid
    other areas' words there (`hid`): "hobbies: reading, learning guitar" whole, where the
    listing's part of hobbies ended at "learning", growth's word, and the fact was "reading".
    None otherwise: the listing's parts stand."""
    found = label_span(normalised(clause)) if hid else None
    return clause[: found[2]] if found is not None and found[0] == {area} else None
