"""Asking the coordinator what the priorities were ("hmm what did I say my priorities were?")
gets them named: a probe saw the wrap-up answer with a count alone ("Priorities: 3"), the
question ignored."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

_FACTS = {"work": "work", "health": "health", "relationships": "family"}


def turn(message: str) -> Turn:
    return Turn(agent="coordinator", current_step="setup_complete", message=message,
                language=lang.language_of(message), facts=_FACTS, inbox_count=3)  # fmt: skip


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("hmm what did I say my priorities were?",
         "Your priorities: work, health, relationships (family)."),
        ("which areas did I pick?", "Your priorities: work, health, relationships (family)."),
        ("какие у меня приоритеты?", "Твои приоритеты: работа, здоровье, отношения (family)."),
        ("напомни, что я назвал", "Твои приоритеты: работа, здоровье, отношения (family)."),
    ],
)  # fmt: skip
def test_the_wrap_up_names_the_priorities_asked_for(message: str, named: str) -> None:
    out = run(turn(message))
    assert out.step_completed
    language = lang.language_of(message)
    assert out.message == f"{named}\n{texts.text(language, 'coordinator', facts=3, items=3)}"


@pytest.mark.parametrize("message", ["ok thanks", "what now?"])
def test_any_other_message_gets_the_wrap_up_alone(message: str) -> None:
    out = run(turn(message))
    assert out.message == texts.text("en", "coordinator", facts=3, items=3)
