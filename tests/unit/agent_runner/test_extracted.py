"""What a turn keeps: the same turn always yields the same inbox item ids, another turn others."""

from __future__ import annotations

from baton_agent_runner.domain.extracted import facts_of, inbox_items_of

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
