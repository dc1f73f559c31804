"""Asked whether more can be added later, the brain dump says yes: "can I add things later?"
got the generic explanation of the brain dump (found by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import run

from .turns import brain_dump_turn


@pytest.mark.parametrize(
    "message",
    ["can I add things later?", "can i add more later", "could I add stuff later on?",
     "можно потом добавить?", "можно будет дописать позже?"],
)  # fmt: skip
def test_adding_later_is_answered_yes(message: str) -> None:
    turn = brain_dump_turn(message, ["call mom", "buy milk"], messages_in_step=2)
    out = run(turn)
    assert out.message.startswith(texts.text(turn.language, "inbox_add_later")), out.message
    assert out.extracted_data == {}
    assert not out.step_completed


def test_an_item_beside_the_question_is_saved_and_the_question_answered() -> None:
    out = run(brain_dump_turn("call mom. can I add more later?", [], messages_in_step=1))
    assert out.extracted_data == {"inbox_items": ["call mom"]}
    assert texts.text("en", "inbox_add_later") in out.message
