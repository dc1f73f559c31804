"""Reading a user's message: its language, life areas, readiness and confirmation."""

# ruff: noqa: RUF001, RUF002  (Russian text, docstrings too, is meant to be Cyrillic)

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["ru", "en"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)

AREAS: dict[str, tuple[str, ...]] = {
    "work": ("work", "job", "career", "работ", "карьер", "бизнес"),
    "health": ("health", "sport", "fitness", "здоров", "спорт", "сон"),
    "relationships": ("relationship", "family", "friend", "partner", "отношени", "семь", "друз"),
    "growth": ("growth", "learning", "study", "develop", "развити", "учёб", "учеб", "рост"),
    "hobbies": ("hobby", "hobbies", "music", "хобби", "увлечени", "музык"),
}
AREA_NAMES: dict[Lang, dict[str, str]] = {
    "en": {a: a for a in AREAS},
    "ru": {
        "work": "работа",
        "health": "здоровье",
        "relationships": "отношения",
        "growth": "развитие",
        "hobbies": "хобби",
    },
}
_READY = (
    "понял",
    "понятно",
    "давай",
    "поехали",
    "готов",
    "ок",
    "got it",
    "let's go",
    "lets go",
    "ready",
    "ok",
    "okay",
    "sure",
    "go ahead",
)
_NEXT_QUESTION = (
    "что дальше",
    "что теперь",
    "какой следующий",
    "дальше?",
    "what's next",
    "what next",
    "what now",
    "next step",
)
_CONFUSED = (
    "не понял",
    "не понимаю",
    "непонятно",
    "не ясно",
    "запутал",
    "don't understand",
    "do not understand",
    "confused",
    "not clear",
    "unclear",
    "what do you mean",
)
_CONFIRM = (
    "да",
    "верно",
    "правильно",
    "точно",
    "всё так",
    "все так",
    "yes",
    "correct",
    "right",
    "exactly",
    "that's right",
    "yep",
)


def language_of(text: str) -> Lang:
    """Russian when the text has Cyrillic letters, else English."""
    return "ru" if _CYRILLIC.search(text) else "en"


def normalised(text: str) -> str:
    """Lowercase, one apostrophe, "е" for "ё": how phrases are compared."""
    return text.lower().replace("’", "'").replace("ё", "е")


def words(text: str) -> list[str]:
    """The words of `text`, normalised, punctuation dropped."""
    return re.findall(r"[\w']+", normalised(text))


def _words(text: str) -> str:
    return " " + re.sub(r"[^\w'’ ]+", " ", text.lower().replace("’", "'")) + " "


def _has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    padded = _words(text)
    return any(f" {p} " in padded for p in phrases)


def is_confused(text: str) -> bool:
    """The user says they do not understand."""
    return _has_phrase(text, _CONFUSED)


def is_ready(text: str) -> bool:
    """Readiness words ("понял", "поехали", "got it", ...) without confusion."""
    return not is_confused(text) and _has_phrase(text, _READY)


def asks_next_step(text: str) -> bool:
    """A question about what comes next."""
    return _has_phrase(text, _NEXT_QUESTION) or "what's next" in text.lower()


def confirms(text: str) -> bool:
    """A short confirmation ("да", "верно", "yes", "correct")."""
    return not is_confused(text) and _has_phrase(text, _CONFIRM) and not areas_in(text)


def areas_in(text: str) -> dict[str, str]:
    """Life areas the text talks about, each with the clause that mentions it."""
    found: dict[str, str] = {}
    for clause in re.split(r"[.;!?\n]+|,\s+(?:а|и|but|and)\s+", text):
        lowered = clause.lower()
        for area, stems in AREAS.items():
            if area not in found and any(stem in lowered for stem in stems):
                found[area] = clause.strip()
    return found
