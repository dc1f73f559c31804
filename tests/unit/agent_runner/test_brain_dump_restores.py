"""Taking a removal back in the brain dump puts the removed item back: a probe saw "no wait,
don't remove the flights, I need them after all", after "Removed from your inbox: book
flights to Rome.", saved as an item of its own, the flights lost."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, removed: str) -> Turn:
    language = lang.language_of(message)
    history = [
        {"role": "assistant", "text": texts.text(language, "saved", items=f"buy milk; {removed}",
                                                 total=2)},
        {"role": "user", "text": "scratch that"},
        {"role": "assistant", "text": texts.text(language, "inbox_removed", item=removed)},
    ]  # fmt: skip
    return brain_dump_turn(message, history=history, inbox_count=1, inbox_open=["buy milk"],
                messages_in_step=3)  # fmt: skip


@pytest.mark.parametrize(
    ("message", "removed"),
    [
        ("no wait, don't remove the flights, I need them after all", "book flights to Rome"),
        ("put the flights back", "book flights to Rome"), ("put it back", "book flights to Rome"),
        ("undo", "book flights to Rome"), ("oops undo the last removal", "book flights to Rome"),
        ("верни билеты", "купить билеты"), ("не удаляй билеты, они нужны", "купить билеты"),
    ],
)  # fmt: skip
def test_the_removed_item_goes_back(message: str, removed: str) -> None:
    assert run(turn(message, removed)).extracted_data["inbox_items"] == [removed]


@pytest.mark.parametrize(
    ("message", "removed"),
    [
        # Naming no removed item, or with no removal said, it is read as before.
        ("put the milk back in the fridge", "book flights to Rome"),
        ("вернуть долг Пете", "купить билеты"),
    ],
)  # fmt: skip
def test_what_names_no_removed_item_is_an_item(message: str, removed: str) -> None:
    assert run(turn(message, removed)).extracted_data["inbox_items"] == [message]
