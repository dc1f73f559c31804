"""An edit of one area's fact asked of the summary in so many words ("rename work to my
startup", "the work one should say my startup", "for health put yoga", "в здоровье напиши
йога", "здоровье поменяй на йогу"), said again as the label the summary reads ("work: my
startup"). The whole request was kept as the fact ("rename work to my startup")."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.areas import NAMES_ONLY
from baton_agent_runner.domain.wording import words

# The area, by its name: "work", "the work one", "my health", "здоровье", "работе".
_HEAD = r"(?:the\s+|my\s+|мо[йяеё]\s+)?(?P<head>[^\s,.;:!?—–]+)(?:\s+(?:one|fact|line|part))?"
_EDITS = tuple(
    re.compile(rf"^\W*{edit}(?P<new>\S.*)$", re.IGNORECASE | re.DOTALL)
    for edit in (
        rf"(?:rename|change|set|update|make)\s+{_HEAD}\s+(?:to|into|as)\s+",
        # Not "work should be less stressful", a wish of it: "be" only with what it is not.
        rf"{_HEAD}\s+(?:should|must|needs\s+to)\s+(?:say|read|be(?=[^,.;!?]+,\s*not\s))\s+",
        rf"(?:for|under|in)\s+{_HEAD}\s*,?\s+(?:put|write|say|use)\s+",
        rf"{_HEAD}\s+(?:is\s+not|isn'?t)\s+[^,.;!?]+,\s*(?:it'?s|it\s+is)\s+",
        rf"{_HEAD}\s+(?:поменяй|замени|смени|исправь)(?:те)?\s+на\s+",
        rf"(?:в|для)\s+{_HEAD}\s+(?:напиши|поставь|запиши|впиши|укажи)(?:те)?\s+",
    )
)
# Not a fact but a rank: "set work as top priority", "health should be first".
_RANK = re.compile(
    r"^(?:an?\s+|the\s+|my\s+)?(?:top|first|main|number\s+one|#?1|priority|higher|lower|last"
    r"|second|third|most\s+important|важнее|главн\w*|перв\w*)\b",
    re.IGNORECASE,
)
# What the new text takes back after it: "health should be yoga, not gym".
_NOT_AFTER = re.compile(r"\s*,?\s*(?:not|а\s+не|не)\s+[^,.;!?]+[.!]?\s*$", re.IGNORECASE)


def as_label(text: str) -> str:
    """The text, when it asks to edit one area's fact to a new one, as that area's label and
    the new fact ("rename work to my startup": "work: my startup"); else as it is."""
    for edit in _EDITS:
        hit = edit.match(text)
        if hit and _names_only(hit["head"]) and not _RANK.match(hit["new"]):
            new = _NOT_AFTER.sub("", hit["new"]) or hit["new"]
            return f"{hit['head']}: {new}"
    return text


def _names_only(head: str) -> bool:
    """Whether `head` is an area's name ("work", "здоровье"), not one of its things ("gym")."""
    said = words(head)
    return len(said) == 1 and NAMES_ONLY.fullmatch(said[0]) is not None
