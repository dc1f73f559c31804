"""The items of a completed list, as the agent-runner saves them: stable ids, a store retried,
none the instance's inbox holds already."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from baton_agent_runner.domain.extracted import (
    NewInboxItem,
    item_id,
    not_yet_saved,
    same_item,
    widget_inbox_items,
)
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.service.widget_lists import WidgetLists
from baton_contracts.workflow import WidgetCompleted

EVENT = WidgetCompleted(
    event_id=uuid.UUID("00000000-0000-4000-8000-00000000000a"),
    occurred_at=datetime(2026, 11, 22, tzinfo=UTC),
    user_id="alice",
    workflow_id="onboarding-classic",
    instance_id="i-1",
    step="brain_dump",
    widget_type="list_input",
    items=["buy milk", "call mom"],
)


class FlakyInbox:
    """An inbox whose first `failures` writes find the database down."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.saved: dict[str, tuple[str, str | None]] = {}

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> list[NewInboxItem]:
        if self.failures:
            self.failures -= 1
            raise StoreUnavailable("inbox: connection refused")
        for item in items:
            self.saved.setdefault(item.item_id, (item.content, instance_id))
        return []

    async def contents(self, user_id: str, instance_id: str) -> list[str]:
        if self.failures:
            self.failures -= 1
            raise StoreUnavailable("inbox: connection refused")
        return [content for content, of in self.saved.values() if of == instance_id]

    def typed_in_chat(self, content: str, instance_id: str = "i-1") -> None:
        """An item a chat turn saved on the instance (its id is a turn's, not the list's)."""
        self.saved[item_id("alice", f"turn-{len(self.saved)}", 0)] = (content, instance_id)


def test_a_list_gives_the_same_ids_every_time_and_none_a_turn_could_give() -> None:
    first = widget_inbox_items("alice", "e-1", ["buy milk", " ", "call mom"])
    assert [(i.content, i.status) for i in first] == [("buy milk", "new"), ("call mom", "new")]
    assert first == widget_inbox_items("alice", "e-1", ["buy milk", "call mom"])
    assert {i.item_id for i in first}.isdisjoint(
        {i.item_id for i in widget_inbox_items("alice", "e-2", ["buy milk", "call mom"])}
    )
    assert first[0].item_id != item_id("alice", "e-1", 0)


async def test_a_store_that_is_down_for_a_moment_is_tried_again() -> None:
    inbox = FlakyInbox(failures=2)
    assert await WidgetLists(inbox, timeout=5.0).completed(EVENT) == 2  # type: ignore[arg-type]
    assert sorted(inbox.saved.values()) == [("buy milk", "i-1"), ("call mom", "i-1")]


async def test_a_store_down_for_longer_fails_the_event_so_that_it_is_delivered_again() -> None:
    inbox = FlakyInbox(failures=1_000_000)
    with pytest.raises(TimeoutError):
        await WidgetLists(inbox, timeout=0.1).completed(EVENT)  # type: ignore[arg-type]
    inbox.failures = 0
    await WidgetLists(inbox, timeout=5.0).completed(EVENT)  # type: ignore[arg-type]
    await WidgetLists(inbox, timeout=5.0).completed(EVENT)  # type: ignore[arg-type]
    assert len(inbox.saved) == 2


def test_items_are_the_same_trimmed_case_folded_and_with_inner_whitespace_collapsed() -> None:
    assert same_item("  Buy   Milk\t") == same_item("buy milk") == "buy milk"
    assert same_item(" Позвонить  МАМЕ") == "позвонить маме"
    # Nor does punctuation around it make another item; inside it, it does.
    assert same_item("«Buy milk!» ") == same_item("- buy milk.") == "buy milk"
    assert same_item("buy milk") != same_item("buy, milk")
    assert same_item("learn C++") != same_item("learn C")


def test_an_item_already_saved_or_listed_before_is_left_out_and_the_rest_keep_their_ids() -> None:
    items = widget_inbox_items("alice", "e-1", ["Call  Mom", "taxes", "TAXES ", "dentist"])
    kept = not_yet_saved(items, [" call mom", "something else"])
    assert [(i.item_id, i.content) for i in kept] == [
        (items[1].item_id, "taxes"),
        (items[3].item_id, "dentist"),
    ]


async def test_an_item_typed_in_the_chat_and_listed_too_is_saved_once() -> None:
    # onboarding-classic's brain dump: the user wrote "Buy milk" in the chat (a turn saved it),
    # then listed it in the widget too; the inbox held it twice.
    inbox = FlakyInbox(failures=0)
    inbox.typed_in_chat("Buy milk")
    event = EVENT.model_copy(update={"items": ["buy  milk ", "call mom", "Call Mom"]})
    assert await WidgetLists(inbox, timeout=5.0).completed(event) == 1  # type: ignore[arg-type]
    assert sorted(inbox.saved.values()) == [("Buy milk", "i-1"), ("call mom", "i-1")]
    # Delivered again: nothing more, and the list's item keeps its id.
    listed = widget_inbox_items("alice", str(EVENT.event_id), event.items)[1]
    assert await WidgetLists(inbox, timeout=5.0).completed(event) == 0  # type: ignore[arg-type]
    assert inbox.saved[listed.item_id] == ("call mom", "i-1") and len(inbox.saved) == 2


async def test_an_item_of_another_instance_does_not_keep_the_list_s_out() -> None:
    inbox = FlakyInbox(failures=0)
    inbox.typed_in_chat("buy milk", instance_id="i-0")  # an earlier onboarding's
    assert await WidgetLists(inbox, timeout=5.0).completed(EVENT) == 2  # type: ignore[arg-type]
    assert sorted(inbox.saved.values()) == [
        ("buy milk", "i-0"),
        ("buy milk", "i-1"),
        ("call mom", "i-1"),
    ]
