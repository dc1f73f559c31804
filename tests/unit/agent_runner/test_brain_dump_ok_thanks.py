""" "ok thanks" to the brain dump's "Anything else?" (or its closing question) is done, as a
"no" to it is: it was neither read as done nor as anything else, and "ok thx" was saved as an
item (found by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import run

from .turns import brain_dump_turn

HELD = ["call mom", "buy milk", "fix bike"]


@pytest.mark.parametrize("asked", ["inbox_anything_else", "inbox_not_yet"])
@pytest.mark.parametrize(
    ("message", "language"),
    [("ok thanks", "en"), ("ok, thanks", "en"), ("ok thx", "en"), ("okay thank you", "en"),
     ("ок спасибо", "ru"), ("ладно, спасибо", "ru")],
)  # fmt: skip
def test_ok_thanks_after_a_question_is_done(message: str, language: str, asked: str) -> None:
    history = [{"role": "assistant", "text": texts.text(language, asked)}]
    out = run(brain_dump_turn(message, HELD, history=history, messages_in_step=4,
                              can_complete=True))  # fmt: skip
    assert out.step_completed, out.message
    assert "inbox_items" not in out.extracted_data


def test_ok_thanks_with_an_item_saves_it() -> None:
    history = [{"role": "assistant", "text": texts.text("en", "inbox_anything_else")}]
    out = run(brain_dump_turn("ok thanks, and call the bank", HELD, history=history,
                              messages_in_step=4, can_complete=True))  # fmt: skip
    assert out.extracted_data == {"inbox_items": ["call the bank"]}
