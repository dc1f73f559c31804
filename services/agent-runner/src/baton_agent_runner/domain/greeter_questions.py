"""Questions about Baton itself, which the greeter answers before the user starts and discovery
and the brain dump as they go: how long it takes, who it is, why it asks about priorities, what
becomes of what the user says, and what it costs (the answers: `texts.faq_<topic>`). Each was
answered with the same "In short, how it works" reply, and "wait, how long does this take?"
with "No rush" (its "wait" read as a plea to wait)."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.about_baton import PAID_FOR_IT
from baton_agent_runner.domain.wording import normalised

# On normalised text (lowercase, "е" for "ё"); the first topic that matches answers.
_TOPICS = (
    (
        "how_long",
        r"how\s+long|how\s+much\s+time|сколько\s+(?:времени|это\s+займет|займет|длится)"
        r"|как\s+долго|долго\s+ли|это\s+долго",
    ),
    (
        "who",
        r"who\s+are\s+you|what\s+are\s+you|who\s+is\s+baton|what\s+is\s+baton|кто\s+ты|ты\s+кто"
        r"|что\s+ты\s+такое|что\s+такое\s+baton"
        # "what can you do?", "are you a bot?", "is this an AI?" got "In short, how it works".
        r"|what\s+can\s+you\s+do|what\s+do\s+you\s+do|are\s+you\s+(?:an?\s+)?(?:ai|bot|robot"
        r"|human|real\s+person|person|real)\b|is\s+this\s+(?:an?\s+)?(?:ai|bot|robot)\b"
        r"|что\s+ты\s+умеешь|ты\s+(?:бот|робот|человек|нейросеть)",
    ),
    (
        "why",
        r"why\s+do\s+you\s+(?:need|want|ask)|why\s+should\s+i|what\s+(?:is\s+it|are\s+they)\s+for"
        r"|зачем\s+(?:тебе|вам)|для\s+чего\s+(?:тебе|вам|это)",
    ),
    (
        "data",
        r"my\s+data|privacy|private|who\s+(?:can\s+|will\s+)?see|stored|мои\s+данные"
        r"|моих\s+данных|приватн|конфиденц|кто\s+(?:это\s+)?увидит|где\s+хран",
    ),
    (
        "cost",
        r"\bfree\b|\bcost|\bprice|how\s+much\s+is|бесплатн|сколько\s+стоит|\bплатн"
        # "do I need to pay?", "is it paid?" got "In short, how it works".
        # Of Baton only: "should I cancel this subscription", "do I need to pay rent?" are a
        # brain dump's items.
        r"|\b(?:need|have)\s+to\s+pay(?:\s+for\s+(?:this|it|baton|anything))?\W*$"
        r"|\bis\s+(?:it|this|baton)\s+paid\W*$|(?:нужно|надо)\s+(?:ли\s+)?платить\W*$"
        # "а деньги за это возьмут?" was saved as a priority of finances.
        rf"|{PAID_FOR_IT.pattern}",
    ),
)
_PATTERNS = tuple((key, re.compile(pattern)) for key, pattern in _TOPICS)

KEYS = tuple(f"greeter_{key}" for key, _ in _TOPICS)
"""The greeter's texts that answer them, each ending on its "Ready to start?"."""


def topic(message: str) -> str | None:
    """The topic ("data", "cost", ...) of the question the message asks (it ends with "?"), or
    None: the greeter answers `greeter_<topic>`, another agent `faq_<topic>`."""
    if not message.rstrip().endswith("?"):
        return None
    return topic_of(message)


def topic_of(question: str) -> str | None:
    """The topic a question is about, its "?" said or not (the brain dump reads questions
    itself: `brain_dump.asked_about`), or None."""
    lowered = normalised(question)
    return next((key for key, pattern in _PATTERNS if pattern.search(lowered)), None)
