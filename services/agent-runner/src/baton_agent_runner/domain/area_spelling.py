"""Area words as users mistype them ("wrok", "helth", "famly", "симья", "здоровя"): read as
the word they meant, within one edit of a fixed list, before the areas are looked for."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re
from functools import lru_cache

from baton_agent_runner.domain.areas import AREA_PATTERNS

# The words a typo is read as: the areas' common names, in the forms people write them. Not
# the short ones with common words one edit away: "sport" ("short"), "sleep" ("sheep",
# "steep"), "money" ("monkey"), "hobby" ("hubby"), "спорт" ("спирт"), "деньги" ("деньки").
_MEANT = frozenset({
    "work", "kids", "wife", "health", "family", "friend", "friends", "relationship",
    "relationships", "growth", "hobbies", "career", "fitness", "learning", "business",
    "finances", "education", "development", "partner", "children", "marriage", "exercise",
    "workout", "studies", "school", "university", "girlfriend", "boyfriend", "husband",
    "parents", "music", "travel", "traveling", "travelling",
    "дети", "работа", "работу", "работе", "работы", "работой", "здоровье", "здоровья",
    "семья", "семьи", "семью", "семье", "семьей", "отношения", "друзья", "друзей", "развитие",
    "саморазвитие", "хобби", "карьера", "карьеру", "учеба", "учебу", "финансы", "бизнес",
    "родители", "путешествия", "музыка", "тренировки", "фитнес", "образование",
})  # fmt: skip
# Real words one edit from a word of `_MEANT`, with its first letter: no typo of it.
_REAL = frozenset({
    "hearth", "heath", "fiend", "fiends", "carer", "careen", "leaning", "busyness", "studied",
    "робота", "роботу", "роботе", "роботы", "роботой",
})  # fmt: skip
_LONG = 5
"""A word this long or longer may be one edit off; a shorter one (of four letters) only two
letters swapped ("wrok"), and a word of three or fewer never ("wok", "job")."""
_WORD = re.compile(r"[^\W\d_]{4,}")


def _deletions(word: str) -> set[str]:
    """The word and each word of one letter fewer: two words one edit apart share one."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def _by_deletion() -> dict[str, set[str]]:
    """Each word of `_MEANT` under itself and under each of its `_deletions`."""
    index: dict[str, set[str]] = {}
    for meant in _MEANT:
        for key in _deletions(meant):
            index.setdefault(key, set()).add(meant)
    return index


_BY_DELETION = _by_deletion()


def _swapped(word: str, meant: str) -> bool:
    """Two neighbouring letters swapped, the first letter kept ("wrok" for "work")."""
    diff = [i for i, (a, b) in enumerate(zip(word, meant, strict=True)) if a != b]
    return (
        len(diff) == 2
        and diff[0] > 0
        and diff[1] == diff[0] + 1
        and word[diff[0]] == meant[diff[1]]
        and word[diff[1]] == meant[diff[0]]
    )


def _one_edit(word: str, meant: str) -> bool:
    """One letter added, dropped, changed, or two neighbours swapped; the first kept."""
    if word[0] != meant[0]:
        return False
    if len(word) == len(meant):
        changed = sum(a != b for a, b in zip(word, meant, strict=True))
        return changed == 1 or _swapped(word, meant)
    short, long_ = sorted((word, meant), key=len)
    if len(long_) - len(short) != 1:
        return False
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@lru_cache(maxsize=4096)
def _meant(lowered: str) -> str | None:
    """The word of `_MEANT` a typo stands for; None for a word that is no typo of one, or
    that is an area's word as it is ("works", "healthy")."""
    if lowered in _MEANT or lowered in _REAL:
        return None
    found = {m for key in _deletions(lowered) for m in _BY_DELETION.get(key, ())}
    if len(lowered) < _LONG:
        found = {m for m in found if len(m) == len(lowered) and _swapped(lowered, m)}
    else:
        found = {m for m in found if _one_edit(lowered, m)}
    if len(found) != 1 or any(p.match(lowered) for p in _PATTERNS):
        return None
    return found.pop()


_PATTERNS = tuple(AREA_PATTERNS.values())


@lru_cache(maxsize=256)
def spelled(text: str) -> str:
    """The text with each mistyped area word read as the word meant ("wrok and helth": "work
    and health"), its first letter's case kept; each word is looked at once, in time linear
    in its length."""
    return _WORD.sub(_respelled, text)


def _respelled(found: re.Match[str]) -> str:
    word = found.group()
    meant = _meant(word.lower().replace("ё", "е"))
    if meant is None:
        return word
    return meant.capitalize() if word[0].isupper() else meant
