"""A request to skip the greeter's introduction by name closes the greeting, as a skip once
introduced does (found by a probe: "hi, can we skip the intro?" got the whole intro)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run


def greeter(message: str) -> Turn:
    return Turn(agent="greeter", current_step="greeting", message=message,
                language=lang.language_of(message), can_complete=True)  # fmt: skip


@pytest.mark.parametrize(
    "message", ["hi, can we skip the intro?", "skip the introduction", "пропустим знакомство"]
)
def test_skipping_the_intro_by_name_moves_on(message: str) -> None:
    assert run(greeter(message)).step_completed


@pytest.mark.parametrize("message", ["skip", "can we not skip the intro?", "what is the intro?"])
def test_before_the_intro_a_bare_skip_or_a_question_gets_it(message: str) -> None:
    assert not run(greeter(message)).step_completed
