"""Brain dump messages a probe found misread: a go-ahead to "Ready?"/"Начнём?" or a return
after a pause ("го", "fire away", "I'm back", "так, я тут") saved as an inbox item."""

# ruff: noqa: RUF001, RUF002  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, **extra: Any) -> Turn:
    return brain_dump_turn(message, **extra)


def _explained(message: str, out_message: str) -> bool:
    explain = texts.text(lang.language_of(message), "inbox_explain", need=3)
    return out_message.endswith(explain)


@pytest.mark.parametrize(
    "message",
    [
        "го", "ну го", "погнали", "вперёд", "норм", "можно", "lets gooo", "fire away", "hit me",
        "sure, shoot", "ready when you are", "I suppose so. What sort of things should I write?",
    ],
)  # fmt: skip
def test_a_go_ahead_to_ready_is_no_item(message: str) -> None:
    out = run(turn(message, messages_in_step=0))
    assert out.extracted_data == {}
    assert _explained(message, out.message)


@pytest.mark.parametrize(
    "message", ["ok I'm back", "I'm back", "я вернулся", "так, я тут", "ok, I'm ready now"]
)
def test_coming_back_after_no_rush_is_no_item(message: str) -> None:
    waited = texts.text(lang.language_of(message), "inbox_wait")
    history = [{"role": "assistant", "text": waited}]
    out = run(turn(message, messages_in_step=1, history=history))
    assert out.extracted_data == {}
    assert _explained(message, out.message)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("го, купить хлеб", ["купить хлеб"]), ("I'm back. call mom", ["call mom"]),
        ("go to the bank", ["go to the bank"]),
        ("можно записать к врачу", ["можно записать к врачу"]),
        ("back pain", ["back pain"]), ("fire the contractor", ["fire the contractor"]),
        ("ready the guest room", ["ready the guest room"]),
    ],
)  # fmt: skip
def test_items_with_go_ahead_words_stay_items(message: str, items: list[str]) -> None:
    out = run(turn(message, messages_in_step=1))
    assert out.extracted_data == {"inbox_items": items}
