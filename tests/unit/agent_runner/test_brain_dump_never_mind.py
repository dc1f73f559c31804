"""Brain dump messages a probe found misread: "never mind", "forget it" (and "неважно",
"забей", "проехали") saved as inbox items, alone or in front of the item after them."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, held: list[str]) -> Turn:
    return brain_dump_turn(message, held, messages_in_step=2)


@pytest.mark.parametrize(
    "message",
    ["never mind", "Never mind.", "forget it", "nvm", "неважно", "забей", "проехали", "Забей!"],
)
def test_never_mind_alone_saves_nothing_and_asks_for_more(message: str) -> None:
    language = lang.language_of(message)
    out = run(turn(message, ["buy milk"]))
    assert out.extracted_data == {}
    assert out.message == "\n".join(
        [
            texts.text(language, "inbox_never_mind"),
            texts.text(language, "inbox_more", need=2, total=1, least=3),
        ]
    )


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("never mind, call grandma", "call grandma"), ("forget it. buy bread", "buy bread"),
        ("забей, позвонить бабушке", "позвонить бабушке"),
        ("проехали. купить хлеб", "купить хлеб"),
    ],
)  # fmt: skip
def test_the_item_after_never_mind_is_saved_without_it(message: str, item: str) -> None:
    out = run(turn(message, ["buy milk"]))
    assert out.extracted_data == {"inbox_items": [item]}


@pytest.mark.parametrize(
    ("message", "removed"), [("forget the milk", "milk"), ("never mind about buy milk", "buy milk")]
)
def test_naming_an_item_still_removes_it(message: str, removed: str) -> None:
    out = run(turn(message, ["buy milk"]))
    assert out.extracted_data == {"removed_inbox_items": [removed]}
