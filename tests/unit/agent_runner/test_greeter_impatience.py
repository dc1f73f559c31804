"""An impatient user urging the greeter on ("just get on with it", "hurry up", "ближе к
делу") is ready: a probe saw each answered with "In short, how it works: ... Ready to
start?", the introduction the user had just asked to be spared."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run


def greeter(message: str) -> Turn:
    return Turn(agent="greeter", current_step="greeting", message=message,
                language=lang.language_of(message), can_complete=True)  # fmt: skip


@pytest.mark.parametrize(
    "message",
    ["just get on with it", "get on with it already", "hurry up", "come on, let's go",
     "ugh, get to the point", "ближе к делу", "давай быстрее", "не тяни"],
)  # fmt: skip
def test_urging_it_on_moves_on(message: str) -> None:
    assert run(greeter(message)).step_completed


@pytest.mark.parametrize("message", ["I can't get on with it", "don't hurry", "what is this?"])
def test_saying_it_cannot_or_asking_is_not_ready(message: str) -> None:
    assert not run(greeter(message)).step_completed
