"""Asking the coordinator what the priorities were ("what did I say my priorities were?",
"какие у меня приоритеты?"): the wrap-up names them, not only counts them."""

# ruff: noqa: RUF002, RUF003  (Russian text in docstrings and comments is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.wording import normalised

# Normalised text ("е" for "ё"). The priorities, or what the user said, asked after.
_ABOUT = re.compile(
    r"\b(?:priorit\w*|areas?|what\s+(?:did\s+)?i\s+(?:say|said|tell\s+you|told\s+you|name|named)"
    r"|приоритет\w*|област\w*|что\s+я\s+(?:тебе\s+)?(?:сказал|сказала|говорил|говорила"
    r"|назвал|назвала|выбрал|выбрала))\b"
)
_ASKING = re.compile(
    r"\?|\b(?:what|which|remind\s+me|list|show|tell\s+me|какие|какой|что|напомни|покажи"
    r"|перечисли|назови)\b"
)
# "change my top priority to health" asks no recap; the words of a change are not a question.
_CHANGING = re.compile(r"\b(?:change|switch|update|make|set|поменя\w*|измени\w*|сделай)\b")
_RECAP = {"en": "Your priorities: {areas}.", "ru": "Твои приоритеты: {areas}."}


def asks_recap(text: str) -> bool:
    """The message asks what the user's priorities are or what they said of them."""
    told = normalised(text)
    return bool(_ABOUT.search(told) and _ASKING.search(told)) and not _CHANGING.search(told)


def recap(language: lang.Lang, facts: dict[str, str]) -> str:
    """The priorities, by area, with the user's own words where they differ ("work, health,
    relationships (family)")."""
    names = lang.AREA_NAMES[language]
    said = []
    for area, fact in facts.items():
        name = names.get(area, area)
        said.append(name if fact.strip().lower() in {name, area} else f"{name} ({fact.strip()})")
    return _RECAP[language].format(areas=", ".join(said))
