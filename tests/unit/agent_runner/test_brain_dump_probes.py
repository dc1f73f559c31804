"""Brain dump messages a probe conversation found misread: a list or its heading after an
opener of filler ("omg ok. 1) call mom 2) pay rent", "так, дела: купить хлеб"); filler alone
("shoot", "если честно") saved as an item; "remove #3", "убери третий",
"never mind about calling mom" saved as items too."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, **extra: Any) -> Turn:
    return brain_dump_turn(message, messages_in_step=1, **extra)


_THREE = ["call mom", "pay rent", "book dentist"]


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # Saved as "omg ok" and "1) call mom 2) pay rent 3) book dentist".
        ("omg ok. 1) call mom 2) pay rent 3) book dentist", _THREE),
        ("ok 1. call mom 2. pay rent 3. book dentist", _THREE),
        ("ну вот: 1) купить хлеб 2) позвонить маме", ["купить хлеб", "позвонить маме"]),
        # The heading was kept in the first item ("дела: купить хлеб").
        ("так, дела: купить хлеб", ["купить хлеб"]),
        ("так, дела: купить хлеб; позвонить маме", ["купить хлеб", "позвонить маме"]),
        ("ok so, todo: buy bread", ["buy bread"]),
        # No list after it: read as it stands.
        ("ok, call mom 2) later", ["call mom 2) later"]),
        ("so, buy 2 apples", ["buy 2 apples"]),
    ],
)  # fmt: skip
def test_a_list_or_its_heading_after_an_opener_is_read_as_a_list(
    message: str, items: list[str]
) -> None:
    out = run(turn(message))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    "message",
    [
        "ugh where do i even start lol", "omg ok", "shoot", "oops", "если честно", "жесть",
        "не знаю, с чего начать", "honestly idk where to start",
    ],
)  # fmt: skip
def test_filler_alone_is_no_item(message: str) -> None:
    # Each was saved ("Saved to your inbox: shoot"); answered as "лол" or "ugh" is.
    out = run(turn(message, inbox_count=1))
    assert out.extracted_data == {}
    language = lang.language_of(message)
    assert out.message == texts.text(language, "inbox_more", need=2, total=1, least=3)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("shoot, call mom", ["call mom"]), ("если честно, купить хлеб", ["купить хлеб"]),
        ("shoot the video for mom", ["shoot the video for mom"]),
        ("start a blog", ["start a blog"]), ("where to buy tires", ["where to buy tires"]),
    ],
)  # fmt: skip
def test_an_item_after_or_of_filler_words_is_still_an_item(message: str, items: list[str]) -> None:
    out = run(turn(message, inbox_count=1))
    assert out.extracted_data == {"inbox_items": items}


def saved(language: lang.Lang, items: list[str], total: int) -> dict[str, str]:
    return {"role": "assistant", "text": texts.text(language, "saved", items="; ".join(items),
                                                     total=total)}  # fmt: skip


_LISTED = {
    "en": ["call mom", "pay rent", "book dentist"],
    "ru": ["позвонить маме", "купить хлеб", "заплатить за квартиру"],
}


def _listed_turn(message: str) -> Turn:
    """The message after three items saved in two replies; the inbox gives them in no order."""
    language = lang.language_of(message)
    first, second, third = _LISTED[language]
    history = [
        {"role": "user", "text": f"{first}; {second}"}, saved(language, [first, second], 2),
        {"role": "user", "text": third}, saved(language, [third], 3),
    ]  # fmt: skip
    return turn(message, history=history, inbox_count=3, inbox_open=[third, first, second])


@pytest.mark.parametrize(
    ("message", "place"),
    [
        ("remove #3", 3), ("delete number 2", 2), ("remove the first one", 1),
        ("remove item 2 from my list", 2), ("убери третий", 3), ("удали 2", 2),
        ("удали вторую запись", 2), ("удали пункт 1", 1),
    ],
)  # fmt: skip
def test_a_removal_by_place_removes_the_item_at_that_place_of_the_list(
    message: str, place: int
) -> None:
    # Each was saved as an item ("Saved to your inbox: remove #3").
    out = run(_listed_turn(message))
    listed = _LISTED[lang.language_of(message)]
    assert out.extracted_data == {"removed_inbox_items": [listed[place - 1]]}


@pytest.mark.parametrize(("message", "place"), [("remove #7", 7), ("удали пятый", 5)])
def test_a_removal_by_a_place_past_the_list_says_so_and_removes_nothing(
    message: str, place: int
) -> None:
    out = run(_listed_turn(message))
    language = lang.language_of(message)
    held = "; ".join(_LISTED[language])
    assert out.extracted_data == {}
    assert out.message == texts.text(language, "inbox_remove_no_place", place=place, items=held)


def test_a_removal_by_place_with_no_list_told_asks_which() -> None:
    out = run(turn("remove #2", inbox_count=2, inbox_open=["call mom", "pay rent"]))
    assert out.extracted_data == {}
    assert out.message == texts.text(
        "en", "inbox_remove_place_which", place=2, items="call mom; pay rent"
    )


def test_items_promoted_first_are_the_first_places() -> None:
    told = (
        texts.text("en", "promoted", items="buy milk") + "\n" + saved("en", ["call mom"], 2)["text"]
    )
    history = [{"role": "assistant", "text": told}]
    out = run(
        turn("remove #2", history=history, inbox_count=2, inbox_open=["call mom", "buy milk"])
    )
    assert out.extracted_data == {"removed_inbox_items": ["call mom"]}


@pytest.mark.parametrize("message", ["remove 2 apples", "удали 2 яблока"])
def test_a_number_that_counts_what_follows_names_no_place(message: str) -> None:
    out = run(_listed_turn(message))
    assert "removed_inbox_items" not in out.extracted_data


_SAID = ["call mom, buy milk, go shopping for shoes, make a cake"]
_HELD = ["call mom", "buy milk", "go shopping for shoes", "make a cake"]


@pytest.mark.parametrize(
    ("message", "removed"),
    [
        # Saved as the item "never mind about calling mom".
        ("never mind about calling mom", "call mom"), ("never mind calling mom", "call mom"),
        ("forget about calling mom", "call mom"), ("nvm making a cake", "make a cake"),
        ("forget about the milk", "milk"),
        ("remove going shopping for shoes", "go shopping for shoes"),
    ],
)  # fmt: skip
def test_never_mind_about_an_item_removes_it(message: str, removed: str) -> None:
    history = [{"role": "user", "text": said} for said in _SAID]
    out = run(turn(message, history=history, inbox_count=4, inbox_open=_HELD))
    assert out.extracted_data == {"removed_inbox_items": [removed]}


@pytest.mark.parametrize(
    "message", ["never mind about the weather", "don't forget about calling mom", "forget it"]
)
def test_never_mind_naming_no_item_removes_nothing(message: str) -> None:
    history = [{"role": "user", "text": said} for said in _SAID]
    out = run(turn(message, history=history, inbox_count=4, inbox_open=_HELD))
    assert "removed_inbox_items" not in out.extracted_data
