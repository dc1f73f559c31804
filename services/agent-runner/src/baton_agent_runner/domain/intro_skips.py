"""A request to skip the greeter's introduction itself ("hi, can we skip the intro?",
"давай без вступления... пропустим знакомство"): the greeting closes, as a skip once
introduced does. Before any introduction a bare "skip" still gets it: there is nothing named
to skip."""

from __future__ import annotations

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
