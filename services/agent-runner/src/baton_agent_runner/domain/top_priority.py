"""A change of the top priority asked of the coordinator ("change my top priority to
health", "поменяй главный приоритет на здоровье"): the area becomes the `focus` note, as
discovery's answer to "which matters most?" is, said before the wrap-up; without an area, it
asks which, and the answer changes it. The request was ignored: the wrap-up alone."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted_turn import Turn, last_reply
from baton_agent_runner.domain.wording import normalised

_CHANGE = re.compile(
    r"\b(?:change|switch|update|make|set|move|put|поменя\w*|измени\w*|смени\w*|сделай|поставь)\b"
)
_TOP = re.compile(
    r"\b(?:top|main|first|number\s+one|biggest)\s+priorit\w*|\bpriority\s+(?:number\s+one|#\s*1)"
    r"|\bto\s+the\s+top\b|главн\w*\s+приоритет\w*|\bна\s+первое\s+место\b"
)
_CHANGED = {
    "en": "Done: your top priority is now {area}.",
    "ru": "Готово: теперь твой главный приоритет — {area}.",
}
_WHICH = {
    "en": "Which area should come first now? For example: health.",
    "ru": "Какая область теперь главная? Например: здоровье.",
}


def asks_change(message: str) -> bool:
    """The message asks to change which area is the top priority."""
    said = normalised(message)
    return bool(_CHANGE.search(said) and _TOP.search(said))


def top_change(turn: Turn) -> tuple[str, dict[str, str]] | None:
    """What the coordinator says of a change of the top priority, and the note it keeps (none
    while it asks which area); None when the message asks none, nor answers its "which?"."""
    asked = any(which in last_reply(turn) for which in _WHICH.values())
    if not (asked or asks_change(turn.message)):
        return None
    found = list(lang.areas_in(turn.message))
    if len(found) == 1:
        area = lang.AREA_NAMES[turn.language][found[0]]
        return _CHANGED[turn.language].format(area=area), {"focus": area}
    return None if asked else (_WHICH[turn.language], {})
