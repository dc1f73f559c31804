"""Brain dump messages a probe found misread: ways of saying "that's all" ("на этом пока
всё", "всё записал", "I believe that's all", "that'll do") and thanks saved as items, so the
user could not finish; "Right." before an item saved on its own; and "thx" to "anything
else?" answered with 'When you are finished, say "that's all"'."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn

_HELD = ["call mom", "pay rent", "book dentist"]


def turn(message: str, **extra: Any) -> Turn:
    return brain_dump_turn(message, _HELD, messages_in_step=3, **extra)


@pytest.mark.parametrize(
    "message",
    [
        "Всё, на этом пока всё, спасибо", "на этом пока всё", "всё записал",
        "мне больше нечего добавить", "I believe that is all for now", "I believe that's all",
        "I suppose that's it", "that'll do",
    ],
)  # fmt: skip
def test_saying_that_is_all_completes(message: str) -> None:
    out = run(turn(message, can_complete=True))
    assert out.extracted_data == {}
    assert out.step_completed


@pytest.mark.parametrize("message", ["Thank you very much, young man.", "thx", "спасибо большое"])
def test_thanks_to_anything_else_after_done_completes(message: str) -> None:
    asked = texts.text(lang.language_of(message), "inbox_not_yet")
    out = run(turn(message, can_complete=True, history=[{"role": "assistant", "text": asked}]))
    assert out.extracted_data == {}
    assert out.step_completed


def test_thanks_alone_is_no_item() -> None:
    out = run(turn("Thank you very much, young man."))
    assert out.extracted_data == {}
    assert not out.step_completed


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("Right. I must renew my passport", ["renew my passport"]),
        ("turn right at the bank", ["turn right at the bank"]),
        ("write a thank you card to my friend", ["write a thank you card to my friend"]),
        ("всё записать в тетрадь", ["всё записать в тетрадь"]),
        ("that'll do for the garden: buy a hose", ["that'll do for the garden: buy a hose"]),
    ],
)  # fmt: skip
def test_items_with_those_words_stay_items(message: str, items: list[str]) -> None:
    out = run(turn(message))
    assert out.extracted_data == {"inbox_items": items}
