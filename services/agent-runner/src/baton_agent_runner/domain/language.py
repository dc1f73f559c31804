"""Reading a user's message: its language, life areas, readiness, confirmation, inbox items."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

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
_DONE = (
    "это всё",
    "это все",
    "больше ничего",
    "готово",
    "that's all",
    "thats all",
    "done",
    "nothing else",
)
_INBOX_INTENT = re.compile(
    r"(запиши|добавь|внеси|сохрани)\s+(в\s+)?(inbox|инбокс|входящ\w*)|"
    r"(add|put|write|save)\s+(this\s+)?(to|in|into)\s+(my\s+)?inbox|\binbox\s*:",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•–]|\d+[.)])\s*")


def language_of(text: str) -> Lang:
    """Russian when the text has Cyrillic letters, else English."""
    return "ru" if _CYRILLIC.search(text) else "en"


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


def says_done(text: str) -> bool:
    """Some line or part of the message is just "это всё", "готово", "that's all", "done"."""
    return any(_is_done(part) for line in text.splitlines() for part in line.split(";"))


def _is_done(part: str) -> bool:
    return _words(_BULLET.sub("", part)).strip() in _DONE


def areas_in(text: str) -> dict[str, str]:
    """Life areas the text talks about, each with the clause that mentions it."""
    found: dict[str, str] = {}
    for clause in re.split(r"[.;!?\n]+|,\s+(?:а|и|but|and)\s+", text):
        lowered = clause.lower()
        for area, stems in AREAS.items():
            if area not in found and any(stem in lowered for stem in stems):
                found[area] = clause.strip()
    return found


def inbox_request(text: str) -> str | None:
    """The item in an off-topic "put this in my inbox" request, or None when it is not one."""
    match = _INBOX_INTENT.search(text)
    if match is None:
        return None
    rest = text[match.end() :].lstrip(" :—-").strip()
    return rest or text.strip()


def split_items(text: str) -> list[str]:
    """Items of a brain dump: one per line, bullet, numbered entry or semicolon-separated part."""
    items: list[str] = []
    for line in text.splitlines():
        for part in line.split(";"):
            item = _BULLET.sub("", part).strip().rstrip(".")
            if item and not _is_done(item):
                items.append(item)
    return items
