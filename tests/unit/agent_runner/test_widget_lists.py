"""The items of a completed list, as the agent-runner saves them: stable ids, a store retried."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from baton_agent_runner.domain.extracted import NewInboxItem, item_id, widget_inbox_items
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
    ) -> None:
        if self.failures:
            self.failures -= 1
            raise StoreUnavailable("inbox: connection refused")
        for item in items:
            self.saved.setdefault(item.item_id, (item.content, instance_id))


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
