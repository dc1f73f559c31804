"""The user's name, when they say it: seed 000 §5 keeps it in the greeting's step data
(`"user_name": "Alex"  // если агент узнал`), where every later step's agent can read it.

Only a name said as one ("меня зовут Аня", "моё имя Анна-Мария", "my name is Alex"), or a
clause that is only "Я Олег"/"I'm Alex" with the name written as one: "I'm ready" and "я
готов" are no introductions, and a guess written into the context would be worse than none.
"""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from baton_agent_runner.domain.texts import text

USER_NAME = "user_name"
"""The key of the greeting's step data (the greeter's signal data) that holds the name."""

_WORD = r"[^\W\d_]{2,30}"
_INTRODUCTION = re.compile(
    r"(?<![^\W\d_])(?:меня\s+зовут|зовут\s+меня|мо[её]\s+имя|my\s+name\s+is|my\s+name['’]s"
    r"|i\s+am\s+called|i['’]m\s+called)(?:\s*[—–:-]\s*|\s+)"
    rf"(?P<name>{_WORD}(?:-{_WORD})?)(?![^\W\d_])",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset(
    {"не", "нет", "никак", "секрет", "неважно", "not", "no", "none", "nobody", "secret"}
)
"""Words an introduction can go on with that are no name ("my name is not important")."""


_CAPITALISED = r"[A-ZА-ЯЁ][a-zа-яё]{1,29}"
_SELF = re.compile(
    r"(?:^|(?<=[.!?,;:]))\s*(?i:я|i['’]m|i\s+am)\s+"
    rf"(?P<name>{_CAPITALISED}(?:-{_CAPITALISED})?)"
    r"(?=\s*(?:$|[.,!?;:)]|\s+(?i:и|and)\s))"
)
"""A clause that is only "Я Олег" / "I'm Alex": its word written as a name (a capital, then
lower case), the clause's end right after it ("Привет! Я Олег", "Hi, I'm Alex, what is this?").
"I'm ready", "я готов", "I'm Alex's brother" or "Я Олег Петрович, директор" are none of it."""
_NOT_SELF_NAMES = frozenset({
    "ready", "fine", "good", "great", "ok", "okay", "here", "back", "done", "sorry", "new",
    "happy", "glad", "busy", "tired", "curious", "confused", "lost", "interested", "alright",
    "well", "in", "on", "not", "also", "so", "just", "really", "very", "still", "too",
    "готов", "готова", "рад", "рада", "тут", "здесь", "снова", "опять", "уже", "тоже", "занят",
    "занята", "устал", "устала", "понял", "поняла", "согласен", "согласна", "новенький",
    "новенькая", "новичок", "сам", "сама", "ок", "окей", "да", "нет", "не", "всё", "все",
})  # fmt: skip
"""Words written with a capital after "I'm"/"Я" that still say how the user is, no name."""


def name_in(message: str) -> str | None:
    """The name the message introduces the user by, capitalised ("аня" -> "Аня"), or None."""
    found = _INTRODUCTION.search(message)
    if found is not None and found.group("name").casefold() not in _NOT_NAMES:
        return "-".join(part[:1].upper() + part[1:] for part in found.group("name").split("-"))
    said = _SELF.search(message)
    if said is not None and said.group("name").casefold() not in _NOT_SELF_NAMES:
        return said.group("name")
    return None


def known_name(step_context: Mapping[str, Any]) -> str | None:
    """The name an earlier turn kept in the workflow's step data, as the turn's `step_context`
    carries it (`workflow.step_data.<step>.user_name`), or None."""
    workflow = step_context.get("workflow")
    steps = workflow.get("step_data") if isinstance(workflow, dict) else None
    if not isinstance(steps, dict):
        return None
    names = [data.get(USER_NAME) for data in steps.values() if isinstance(data, dict)]
    return next((name for name in reversed(names) if isinstance(name, str) and name), None)


def greeted(language: str, name: str, reply: str) -> str:
    """`reply` greeting the user by `name`: in place of the "Привет!"/"Hi!" an introduction
    opens with, else before it ("Nice to meet you, Alex! ...")."""
    hi = text(language, "hi")
    if reply.startswith(hi):
        return text(language, "hi_named", name=name) + reply[len(hi) :]
    return f"{text(language, 'nice_to_meet', name=name)} {reply}"
