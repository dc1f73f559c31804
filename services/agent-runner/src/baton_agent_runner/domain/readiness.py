"""Reading a message to the greeter: readiness, a plea to wait, confusion, the next step."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from baton_agent_runner.domain.wording import clauses, has_phrase, hits, normalised

# Phrases are matched as whole words on the normalised text (lowercase, "е" for "ё").
_READY = (
    "понял", "поняла", "понятно", "давай", "давайте", "поехали", "готов", "готова", "ок",
    "got it", "let's go", "lets go", "ready", "ok", "okay", "sure", "go ahead",
    "can't wait", "cant wait", "cannot wait", "начнем", "начинаем", "let's start", "lets start",
    "let's begin", "lets begin",
)  # fmt: skip
_WAIT = ("подожди", "погоди", "пока нет", "еще нет", "not yet", "wait", "hold on")
# "Вопросов пока нет" answers the greeter's "any questions?": its "пока нет" is no "not yet".
_NO_QUESTIONS = re.compile(
    r"\b(?:(?:пока|еще|больше)\s+)?(?:нет|никаких)\s+(?:(?:пока|еще|больше)\s+)?вопрос\w*"
    r"|\bвопрос\w*\s+(?:(?:у\s+меня|пока|еще|больше|вроде|тоже)\s+)*нет\b"
)
_NEXT_QUESTION = (
    "что дальше", "что теперь", "какой следующий", "what's next", "what next", "what now",
    "next step",
)  # fmt: skip
# A question ending on "дальше", "потом" or "next" ("А дальше что?", "What happens next?").
_NEXT_ASKED = re.compile(r"\b(?:(?:дальше|потом)(?:\s+что)?|next)\s*\?")
_CONFUSED = (
    "непонятно", "неясно", "запутал", "запуталась", "запутался", "в смысле", "confused",
    "unclear", "what do you mean",
)  # fmt: skip
_UNDERSTOOD = (
    "понял", "поняла", "понятно", "понимаю", "ясно", "уверен", "уверена",
    "understand", "understood", "get it", "got it", "clear", "sure",
)  # fmt: skip
"""Said with a negation before them ("не понятно", "not sure"), these are confusion."""


Readiness = Literal["confused", "waiting", "ready"]


@lru_cache(maxsize=64)  # a turn asks it up to three times of the same message
def readiness(text: str) -> Readiness | None:
    """What the last clause that speaks of readiness says: confusion ("непонятно", "I don't get
    it"), a plea to wait ("подожди", "не готов", "not yet") or readiness ("поехали", "let's go"),
    so that "I'm not sure, but let's go" is ready and "Понял, но подожди" is not."""
    said: Readiness | None = None
    for tokens in clauses(_NO_QUESTIONS.sub(" ", normalised(text))):
        padded = " " + " ".join(tokens) + " "
        if any(f" {p} " in padded for p in _CONFUSED) or hits(tokens, _UNDERSTOOD, negated=True):
            said = "confused"
        elif hits(tokens, _WAIT, negated=False) or hits(tokens, _READY, negated=True):
            said = "waiting"
        elif hits(tokens, _READY, negated=False):
            said = "ready"
    return said


def is_confused(text: str) -> bool:
    """The user says they do not understand ("непонятно", "не понял", "not sure")."""
    return readiness(text) == "confused"


def is_not_ready(text: str) -> bool:
    """A readiness word negated ("я пока не готов", "not ready") or a plea to wait ("подожди",
    "not yet"; not "can't wait", nor "вопросов пока нет")."""
    return readiness(text) == "waiting"


def is_ready(text: str) -> bool:
    """Readiness words ("понял", "поехали", "got it", ...), not negated, and no confusion or
    plea to wait after them."""
    return readiness(text) == "ready"


def asks_next_step(text: str) -> bool:
    """A question about what comes next ("Что дальше?", "А потом что?", "What comes next?")."""
    return has_phrase(text, _NEXT_QUESTION) or bool(_NEXT_ASKED.search(normalised(text)))
