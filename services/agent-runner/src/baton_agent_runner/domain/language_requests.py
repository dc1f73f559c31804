"""Asking to be answered in a language ("can we do this in English?", "давай по-русски"):
the user's choice, which outweighs the letters the request is written in."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re
from typing import Literal

# "привет, can we do this in English?" was answered in Russian, as was every message after.
_ENGLISH = (
    r"in\s+english|english\s+(?:please|pls|plz)|(?:speak|talk|write|answer|reply|switch\s+to)"
    r"\s+(?:in\s+)?english|по-?английски|на\s+английском|in\s+englisch"
)
_RUSSIAN = (
    r"in\s+russian|russian\s+(?:please|pls|plz)|(?:speak|talk|write|answer|reply|switch\s+to)"
    r"\s+(?:in\s+)?russian|по-?русски|на\s+русском|po-?russki|na\s+russkom"
)
_ASKED = re.compile(rf"\b(?:(?P<en>{_ENGLISH})|(?P<ru>{_RUSSIAN}))\b", re.IGNORECASE)
# "I don't speak English", "я не говорю по-английски", "not in english": a language the user
# does not want.
_NOT = re.compile(
    r"\b(?:not|don'?t|do\s+not|can'?t|cannot|no|не|нет)\s+(?:\w+\s+){0,2}$", re.IGNORECASE
)

# The words a request may hold besides the language ("can we do this in English please?",
# "давай лучше по-русски"); a clause with others names a task ("написать отчёт на английском").
_AROUND = frozenset({
    "can", "could", "we", "you", "i", "do", "this", "it", "please", "pls", "plz", "let's", "lets",
    "continue", "talk", "speak", "go", "on", "ok", "okay", "hi", "hey", "hello", "rather",
    "instead", "only", "maybe", "would", "prefer", "like", "to", "the", "rest", "is", "in",
    "давай", "давайте", "можно", "пожалуйста", "лучше", "говорить", "общаться", "продолжим",
    "продолжить", "перейдем", "перейти", "ты", "вы", "мы", "со", "мной", "ок", "привет",
    "а", "ну", "плиз", "только", "дальше", "будем", "говори", "пиши", "отвечай", "с",
})  # fmt: skip
_CLAUSE = re.compile(r"[^,.!?;\n]+")


def asked_language(text: str) -> Literal["en", "ru"] | None:
    """The language the text asks to be answered in, when a clause of it asks for one and
    does not say the user cannot or will not use it."""
    found = None
    for clause in _CLAUSE.findall(text.lower().replace("ё", "е")):
        for match in _ASKED.finditer(clause):
            rest = re.findall(r"[\w']+", clause[: match.start()] + " " + clause[match.end() :])
            if _NOT.search(clause[: match.start()]) is None and set(rest) <= _AROUND:
                found = match
    if found is None:
        return None
    return "en" if found.group("en") else "ru"
