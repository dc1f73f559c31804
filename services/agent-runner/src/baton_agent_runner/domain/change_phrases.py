"""The phrases of a brain dump correction said as a change of some words of an item into
others: "change milk to bread", "замени молоко на хлеб", "keep netflix, cancel hulu
instead" (read in `inbox_corrections`)."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

# "change milk to bread", "replace milk with bread", "swap milk for bread".
_CHANGE_EN = re.compile(
    r"^(?:please\s+)?(?:change|replace|swap|switch|correct)\s+(?P<old>[^,;]+?)\s+"
    r"(?:to|with|for|into)\s+(?P<new>[^,;]+?)[\s.!]*$",
    re.IGNORECASE,
)
# "замени молоко на хлеб", "поменяй молоко на хлеб", "исправь молоко на хлеб".
_CHANGE_RU = re.compile(
    r"^(?:пожалуйста\s+)?(?:замени|поменяй|исправь|измени|смени)(?:те)?\s+(?P<old>[^,;]+?)\s+"
    r"на\s+(?P<new>[^,;]+?)[\s.!]*$",
    re.IGNORECASE,
)
# "keep netflix, cancel hulu instead", "оставь нетфликс, лучше отменить hulu": the item holding
# what is kept gets the new words in their place ("cancel netflix": "cancel hulu").
_KEPT = (
    r"^(?:(?:i'?ll|i\s+will|let'?s)\s+)?keep\s+(?P<old>[^,;]+?)\s*(?:[,;—–]\s*|\s+and\s+)"
    r"(?:(?:and|but)\s+)?"
)
_KEEP_INSTEAD = (
    re.compile(_KEPT + r"(?P<new>[^,;]+?)\s+instead[\s.!]*$", re.IGNORECASE),
    re.compile(_KEPT + r"instead\s+(?P<new>[^,;]+?)[\s.!]*$", re.IGNORECASE),
    re.compile(
        r"^(?:оставь(?:те)?|оставлю|оставим)\s+(?P<old>[^,;]+?)\s*[,;—–]\s*(?:а\s+)?"
        r"(?:лучше|вместо\s+(?:этого|него|не[её]))\s+(?P<new>[^,;]+?)[\s.!]*$",
        re.IGNORECASE,
    ),
)
CHANGES = (_CHANGE_EN, _CHANGE_RU, *_KEEP_INSTEAD)
"""The phrases that say a change of the words named first (`old`) into the others (`new`)."""


def change_said(text: str) -> re.Match[str] | None:
    """The change `text` says (`CHANGES`), its words as the groups `old` and `new`."""
    return next(filter(None, (rule.match(text) for rule in CHANGES)), None)
