"""What a turn keeps: the same turn always yields the same inbox item ids, another turn others."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain.extracted import (
    NewInboxItem,
    deferred_contents,
    facts_of,
    inbox_items_of,
    repeats,
    trimmed_item,
    widget_inbox_items,
)

DATA = {"inbox_items": ["milk", " ", "bread"], "deferred_inbox_items": ["call bank"]}


def test_items_are_numbered_across_both_lists_with_their_status() -> None:
    items = inbox_items_of("ann", "turn-1", DATA)
    assert [(i.content, i.status) for i in items] == [
        ("milk", "new"),
        ("bread", "new"),
        ("call bank", "deferred"),
    ]
    assert len({i.item_id for i in items}) == 3


def test_the_same_turn_gives_the_same_ids_and_another_turn_or_user_other_ones() -> None:
    ids = [i.item_id for i in inbox_items_of("ann", "turn-1", DATA)]
    assert [i.item_id for i in inbox_items_of("ann", "turn-1", DATA)] == ids
    assert not {i.item_id for i in inbox_items_of("ann", "turn-2", DATA)} & set(ids)
    assert not {i.item_id for i in inbox_items_of("bob", "turn-1", DATA)} & set(ids)


def test_facts_and_items_ignore_what_is_not_theirs() -> None:
    assert facts_of({"facts": {"work": "startup", "health": 3}}) == {
        "work": "startup",
        "health": "3",
    }
    assert (
        facts_of({"facts": ["work"]}) == {} and inbox_items_of("a", "k", {"inbox_items": "x"}) == []
    )


def test_an_item_said_twice_in_a_turn_is_one_item_and_the_numbering_has_no_gap() -> None:
    data = {
        "inbox_items": ["buy milk", "Buy  milk!", "call mom"],
        "deferred_inbox_items": ["call mom."],
    }
    items = inbox_items_of("ann", "turn-1", data)
    assert [i.content for i in items] == ["buy milk", "call mom"]
    assert [i.item_id for i in items] == [
        i.item_id
        for i in inbox_items_of("ann", "turn-1", {"inbox_items": ["buy milk", "call mom"]})
    ]


def test_a_repeat_is_an_item_another_open_item_or_an_earlier_one_holds_not_its_own_retry() -> None:
    said = [
        NewInboxItem("t-0", "Call mom!", "new"),  # held by another item
        NewInboxItem("t-1", "buy milk", "new"),  # held by itself: a retry
        NewInboxItem("t-2", "fix the sink", "new"),
        NewInboxItem("t-3", "Fix the sink", "new"),  # an earlier one of the list
    ]
    held = [("o-1", "call mom"), ("t-1", "buy milk")]
    assert repeats(said, held) == [said[0], said[3]]
    assert repeats(said[1:3], []) == []


@pytest.mark.parametrize(
    ("said", "saved"),
    [
        ("позвонить маме!", "позвонить маме"),
        ("позвонить маме?!", "позвонить маме"),
        ("call mom…", "call mom"),
        ("call mom...", "call mom"),
        ("call mom!.", "call mom"),
        ("wow !!! ", "wow"),
        ("learn C++!", "learn C++"),
        ("update to v2.0!", "update to v2.0"),
        ("купить хлеб (белый)!", "купить хлеб (белый)"),
        ("прочитать «Войну и мир»!", "прочитать «Войну и мир»"),
        ('read "Dune"?', 'read "Dune"'),
        ("позвонить маме!)", "позвонить маме"),
        ('call mom!"', "call mom"),
        ("позвонить маме!»", "позвонить маме"),
        ("купить молоко :)", "купить молоко"),
        ("позвонить Петрову В.!", "позвонить Петрову В."),
    ],
)
def test_an_item_is_saved_without_the_sentence_punctuation_that_ends_it(
    said: str, saved: str
) -> None:
    # "позвонить маме!" was saved with its "!", and the reply read "маме!.".
    assert trimmed_item(said) == saved


@pytest.mark.parametrize(
    "said", ["learn C++", "update to v2.0", "купить хлеб (белый)", "позвонить Петрову В.", "etc."]
)
def test_punctuation_that_belongs_to_the_item_stays(said: str) -> None:
    assert trimmed_item(said) == said


def test_every_saved_item_is_trimmed_whichever_model_or_list_gave_it() -> None:
    data = {"inbox_items": ["Call mom!", "!!!"], "deferred_inbox_items": ["pay rent?!"]}
    items = inbox_items_of("ann", "turn-1", data)
    assert [i.content for i in items] == ["Call mom", "pay rent"]
    assert deferred_contents(data) == ["pay rent"]  # as the reply's note names them
    widget = widget_inbox_items("ann", "event-1", ["позвонить маме!", "…", "learn C++"])
    assert [i.content for i in widget] == ["позвонить маме", "learn C++"]
