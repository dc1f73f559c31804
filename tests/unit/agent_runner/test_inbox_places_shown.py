"""A place in the brain dump's list ("#2") counts the whole list as the replies last showed it,
whether the message removes the item ("remove #2") or says it is done ("cancel #2 i already did
it"): a probe found "already did it" counting within the user's last message alone, so the two
took out different items."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def _chat(language: lang.Lang, lists: list[list[str]]) -> list[dict[str, str]]:
    """The user's lists, each told saved by the agent's reply, as the running agent says it."""
    history, total = [], 0
    for items in lists:
        total += len(items)
        history.append({"role": "user", "text": "\n".join(items)})
        said = texts.text(language, "saved", items="; ".join(items), total=total)
        history.append({"role": "assistant", "text": said})
    return history


def turn(message: str, lists: list[list[str]]) -> Turn:
    language = lang.language_of(message)
    held = [item for items in lists for item in items]
    return brain_dump_turn(
        message, held, history=_chat(language, lists), messages_in_step=len(lists)
    )


_EN = [["buy milk", "book flights"], ["renew passport", "call mom"]]
_RU = [["купить молоко", "забронировать билеты"], ["продлить паспорт", "позвонить маме"]]


@pytest.mark.parametrize(
    ("message", "lists", "gone"),
    [
        ("remove #2", _EN, "book flights"), ("cancel #2 i already did it", _EN, "book flights"),
        ("no wait cancel #3, already did it", _EN, "renew passport"),
        ("удали №2", _RU, "забронировать билеты"),
        ("ой, №2 уже сделала", _RU, "забронировать билеты"),
    ],
)  # fmt: skip
def test_a_place_counts_the_whole_list_shown(
    message: str, lists: list[list[str]], gone: str
) -> None:
    out = run(turn(message, lists))
    assert out.extracted_data == {"removed_inbox_items": [gone]}


@pytest.mark.parametrize("message", ["remove #1", "no wait cancel #1 i already did it"])
def test_a_changed_item_keeps_the_place_of_the_one_it_changed(message: str) -> None:
    # "#3" after "Changed: buy milk → buy oat milk." counted the list without the changed
    # item, as if it had been said last.
    said = turn(message, _EN)
    history = [
        *said.history,
        {"role": "user", "text": "no wait not milk, oat milk"},
        {"role": "assistant", "text": texts.text("en", "inbox_changed", item="buy milk",
                                                 new="buy oat milk")},
    ]  # fmt: skip
    held = ["book flights", "renew passport", "call mom", "buy oat milk"]
    out = run(said.model_copy(update={"history": history, "inbox_open": held}))
    assert out.extracted_data == {"removed_inbox_items": ["buy oat milk"]}
