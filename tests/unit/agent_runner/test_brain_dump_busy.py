"""Brain dump messages a probe found misread: "not now" with where the user is as the reason
("not right now, I'm at work", "не сейчас, я за рулём", "not now because I'm driving") saved
as an inbox item."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str) -> Turn:
    return brain_dump_turn(message, messages_in_step=0)


@pytest.mark.parametrize(
    "message",
    [
        "not right now, I'm at work", "later, I'm driving", "потом, я занят",
        "не сейчас, я за рулём", "not now, busy", "давай позже", "I'm in a meeting, later",
        # With no comma between: saved as the item "not now because I'm driving".
        "not now because I'm driving", "not right now I'm at work", "I'm driving so later",
        "не сейчас потому что я за рулём", "потом, я занят потому что на работе",
    ],
)  # fmt: skip
def test_not_now_with_a_reason_saves_nothing(message: str) -> None:
    out = run(turn(message))
    assert out.extracted_data == {}
    assert out.message == texts.text(lang.language_of(message), "inbox_wait")


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("not now, busy. buy milk", ["buy milk"]),
        # "later," that opens it is no part of the item ("later, call the bank" was saved so).
        ("later, call the bank", ["call the bank"]), ("потом, я куплю хлеб", ["я куплю хлеб"]),
        ("Потом, позвонить в банк", ["позвонить в банк"]), ("maybe later, buy milk", ["buy milk"]),
        # A day is the item's own, and a colon makes "later" a label of it.
        ("later: call the bank", ["later: call the bank"]),
        ("tomorrow, call the bank", ["tomorrow, call the bank"]),
        ("завтра, позвонить в банк", ["завтра, позвонить в банк"]),
        ("потом купить хлеб", ["потом купить хлеб"]),
    ],
)  # fmt: skip
def test_an_item_after_not_now_is_still_an_item(message: str, items: list[str]) -> None:
    out = run(turn(message))
    assert out.extracted_data == {"inbox_items": items}
