""" "забудь" ("forget it") right after items were saved takes back the one saved last, as
"удали последнее" does: it was read as nothing saved, the item staying in the inbox, and
"забудь это" was saved as an item (found by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import run

from .turns import brain_dump_turn

HELD = ["позвонить маме", "купить хлеб"]


def _after_saving(message: str) -> AgentOutput:
    saved = texts.text("ru", "saved", items="; ".join(HELD), total=2)
    reply = f"{saved}\n{texts.text('ru', 'inbox_more', need=1)}"
    history = [{"role": "user", "text": "позвонить маме; купить хлеб"},
               {"role": "assistant", "text": reply}]  # fmt: skip
    return run(brain_dump_turn(message, HELD, history=history, messages_in_step=1))


@pytest.mark.parametrize("message", ["забудь", "забудь это", "Забудьте!", "ой, забудь"])
def test_forget_after_a_save_removes_the_last_item(message: str) -> None:
    out = _after_saving(message)
    assert out.extracted_data == {"removed_inbox_items": ["купить хлеб"]}
    assert texts.text("ru", "inbox_never_mind") not in out.message


def test_forget_with_nothing_just_saved_saves_nothing() -> None:
    # Before anything is saved there is nothing to take back: "nothing saved", as before.
    out = run(brain_dump_turn("забудь", [], messages_in_step=1))
    assert out.extracted_data == {}
    assert out.message.startswith(texts.text("ru", "inbox_never_mind"))


@pytest.mark.parametrize("message", ["забей", "проехали"])
def test_never_mind_still_takes_back_what_was_about_to_be_said(message: str) -> None:
    out = _after_saving(message)
    assert out.extracted_data == {}
    assert out.message.startswith(texts.text("ru", "inbox_never_mind"))
