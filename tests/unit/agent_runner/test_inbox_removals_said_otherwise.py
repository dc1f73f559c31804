"""Brain dump removals a probe found misread: Russian said object first ("стоматолога
убери", "про стоматолога забудь", "стоматолог не нужен") saved as new items, and an item
holding a comma ("buy milk, 2 liters") not found by "remove milk"."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.extracted import to_remove
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn

_RU = ["записаться к стоматологу", "купить молоко", "позвонить маме"]


def turn(message: str, held: list[str], **extra: Any) -> Turn:
    return brain_dump_turn(message, held, messages_in_step=3, **extra)


@pytest.mark.parametrize(
    ("message", "removed"),
    [
        ("стоматолога убери", "стоматологу"), ("молоко вычеркни", "молоко"),
        ("стоматолога удали", "стоматологу"), ("про стоматолога забудь", "стоматологу"),
        ("стоматолог не нужен", "стоматологу"),
        ("хотя нет, стоматолога убери, я передумал", "стоматологу"),
    ],
)  # fmt: skip
def test_a_removal_said_object_first_removes_the_item(message: str, removed: str) -> None:
    out = run(turn(message, _RU))
    assert out.extracted_data == {"removed_inbox_items": [removed]}
    assert len(to_remove(_RU, removed)) == 1  # the inbox store finds the one item
    assert out.message == texts.text("ru", "inbox_more", need=1, total=2, least=3)


@pytest.mark.parametrize("message", ["пыль в ванной сотри", "зонт не нужен"])
def test_one_naming_nothing_said_is_still_an_item(message: str) -> None:
    out = run(turn(message, _RU))
    assert out.extracted_data == {"inbox_items": [message]}


def test_a_verb_of_removing_after_not_asks_to_keep_and_removes_nothing() -> None:
    # "не забудь!" was read as "забудь не": 'В inbox нет записи «не»', and the items after it
    # were not saved.
    said = [{"role": "user", "text": "не забыть"}, {"role": "assistant", "text": "Что именно?"}]
    message = "не забудь!\nне забыть оплатить интернет\nпозвонить маме"
    out = run(turn(message, _RU, history=said))
    assert out.extracted_data == {"inbox_items": ["оплатить интернет"]}


@pytest.mark.parametrize(
    ("message", "held"),
    [
        ("remove milk", ["buy milk, 2 liters", "call mom"]),
        ("remove buy milk", ["buy milk, 2 liters", "call mom"]),
        ("remove my commute", ["my commute, 2 hours a day", "call mom"]),
    ],
)
def test_an_item_holding_a_comma_is_removed_by_its_words(message: str, held: list[str]) -> None:
    out = run(turn(message, held))
    (said,) = out.extracted_data["removed_inbox_items"]
    assert to_remove(held, said) == [0]  # what the inbox store takes out
    assert out.message == texts.text("en", "inbox_more", need=2, total=1, least=3)
