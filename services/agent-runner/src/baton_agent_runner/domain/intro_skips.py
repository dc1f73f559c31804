"""A request to skip the greeter's introduction itself ("hi, can we skip the intro?",
"давай без вступления... пропустим знакомство"): the greeting closes, as a skip once
introduced does. Before any introduction a bare "skip" still gets it: there is nothing named
to skip."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.skipping import asks_to_skip
from baton_agent_runner.domain.wording import words

_INTRO = frozenset({
    "intro", "introduction", "introductions", "greeting", "onboarding", "вступление",
    "знакомство", "приветствие", "введение",
})  # fmt: skip
_HELLO = frozenset({"hi", "hello", "hey", "привет", "здравствуйте", "приветик"})


def skips_intro(message: str) -> bool:
    """The message asks to skip the introduction by name, with a greeting beside it at most."""
    said = words(message)
    if not _INTRO.intersection(said):
        return False
    return asks_to_skip(" ".join(word for word in said if word not in _INTRO | _HELLO))


# Asking whether, not asking to: "can I skip this?", "можно это пропустить?".
_WHETHER = re.compile(
    r"^\W*(?:(?:can|could|may)\s+(?:i|we)|is\s+it\s+(?:ok|okay|possible)\s+to"
    r"|(?:а\s+)?можно(?:\s+ли)?)\b|\?\s*$",
    re.IGNORECASE,
)


def asks_whether_to_skip(message: str) -> bool:
    """The message asks whether it may skip ("can I skip this?"), naming no introduction
    ("can we skip the intro?" skips it, `skips_intro`)."""
    return bool(_WHETHER.search(message)) and asks_to_skip(message) and not skips_intro(message)
