"""A list the user completed on a workflow step lands in their inbox, once, however often the
event comes."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from nats.aio.client import Client
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters.sql import inbox_items
from baton_agent_runner.adapters.sql_stores import SqlInboxStore
from baton_agent_runner.bootstrap import AgentRunnerApp
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_contracts.workflow import WidgetCompleted

from .conftest import Conversation
from .test_step_starts import inbox, inbox_soon


def completed_list(
    user: str, *items: str, widget_type: str = "list_input", instance: str | None = None
) -> WidgetCompleted:
    return WidgetCompleted(
        event_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
        user_id=user,
        workflow_id="onboarding-classic",
        instance_id=instance or f"i-{user}",
        step="brain_dump",
        widget_type=widget_type,
        items=list(items),
    )


async def publish(client: Client, event: WidgetCompleted, msg_id: str | None = None) -> None:
    """Into the stream as the outbox does; another `msg_id` is a copy JetStream keeps (a
    republish after its duplicate window), so the agent-runner gets the event again."""
    await client.jetstream().publish(
        event.wire_subject(),
        event.to_bytes(),
        headers={"Nats-Msg-Id": msg_id or str(event.event_id)},
    )


async def handled_after(client: Client) -> None:
    """Returns once every event published before it has been handled: a marker list after
    them has reached its own inbox (one durable hands events over in order)."""
    marker = f"marker-{uuid.uuid4().hex[:8]}"
    await publish(client, completed_list(marker, "marker item"))
    assert await inbox_soon(client, marker) == ["marker item"]


async def test_a_completed_list_becomes_inbox_items_of_its_instance(
    runner: AgentRunnerApp, client: Client
) -> None:
    await publish(client, completed_list("lena", "купить молоко", "позвонить маме"))
    assert sorted(await inbox_soon(client, "lena")) == ["купить молоко", "позвонить маме"]
    rows = await _rows(runner, "lena")
    assert {(r.source, r.status, r.instance_id, r.turn_key) for r in rows} == {
        ("onboarding", "new", "i-lena", None)
    }


async def test_the_same_list_delivered_again_adds_nothing(
    runner: AgentRunnerApp, client: Client
) -> None:
    event = completed_list("mark", "taxes", "dentist")
    await publish(client, event)
    assert sorted(await inbox_soon(client, "mark")) == ["dentist", "taxes"]
    await publish(client, event, msg_id=f"{event.event_id}-again")
    await handled_after(client)
    assert sorted(await inbox(client, "mark")) == ["dentist", "taxes"]


async def test_a_widget_that_is_not_a_list_leaves_the_inbox_alone(
    runner: AgentRunnerApp, client: Client
) -> None:
    await publish(client, completed_list("nora", "5 stars", widget_type="rating"))
    await handled_after(client)
    assert await inbox(client, "nora") == []


async def test_an_item_typed_in_the_chat_and_listed_too_is_in_the_inbox_once(
    runner: AgentRunnerApp, client: Client
) -> None:
    talk = Conversation(client, "olga")  # on instance i-1
    typed = await talk.say("inbox_collector", "brain_dump", "Купить молоко", can_complete=False)
    assert typed.extracted_data == {"inbox_items": ["Купить молоко"]}
    event = completed_list("olga", "купить  молоко ", "позвонить маме", instance="i-1")
    await publish(client, event)
    await handled_after(client)
    assert sorted(await inbox(client, "olga")) == ["Купить молоко", "позвонить маме"]
    await publish(client, event, msg_id=f"{event.event_id}-again")
    await handled_after(client)
    assert sorted(await inbox(client, "olga")) == ["Купить молоко", "позвонить маме"]


async def test_the_inbox_tells_the_contents_of_one_instance_whatever_their_status(
    engine: AsyncEngine,
) -> None:
    store = SqlInboxStore(engine, lambda: datetime.now(UTC))
    await store.add("ann", [NewInboxItem("a1", "buy milk", "new")], instance_id="i-1")
    await store.add("ann", [NewInboxItem("a2", "call mom", "deferred")], instance_id="i-1")
    await store.add("ann", [NewInboxItem("a3", "taxes", "new")], instance_id="i-2")
    await store.add("bob", [NewInboxItem("b1", "dentist", "new")], instance_id="i-1")
    await store.add("ann", [NewInboxItem("a4", "no instance", "new")])
    assert sorted(await store.contents("ann", "i-1")) == ["buy milk", "call mom"]
    assert await store.contents("ann", "i-3") == []


async def _rows(runner: AgentRunnerApp, user: str) -> list[object]:
    async with runner.engine.connect() as conn:
        found = await conn.execute(select(inbox_items).where(inbox_items.c.user_id == user))
        return list(found.all())
