"""Deferred inbox items land in the inbox when the brain dump starts, not at its first turn."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from nats.aio.client import Client
from sqlalchemy import text

from baton_agent_runner.adapters import sql
from baton_agent_runner.bootstrap import AgentRunnerApp
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_contracts.agent_api import InboxItems, ListInboxItems
from baton_contracts.workflow import StepChanged, WorkflowStarted
from baton_eventstore import create_engine, migrate
from baton_messaging import request

from .conftest import Conversation


def step_changed(user: str, step: str, agent: str | None) -> StepChanged:
    return StepChanged(
        event_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
        user_id=user,
        workflow_id="onboarding",
        instance_id=f"i-{user}",
        previous_step="discovery",
        current_step=step,
        progress=0.66,
        current_agent=agent,
    )


async def publish(client: Client, event: StepChanged | WorkflowStarted) -> None:
    await client.jetstream().publish(
        event.wire_subject(), event.to_bytes(), headers={"Nats-Msg-Id": str(event.event_id)}
    )


async def inbox(client: Client, user: str) -> list[str]:
    reply = await request(client, ListInboxItems(user_id=user), timeout=5.0)
    assert isinstance(reply, InboxItems)
    return [item.content for item in reply.items]


async def inbox_soon(client: Client, user: str) -> list[str]:
    """The user's inbox once it has something (the reaction to an event is asynchronous)."""
    for _ in range(100):
        if found := await inbox(client, user):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"{user}'s inbox stayed empty for 5 s")


async def test_the_brain_dump_start_moves_deferred_items_and_the_first_turn_mentions_them(
    runner: AgentRunnerApp, client: Client
) -> None:
    talk = Conversation(client, "nina")
    await talk.say("discovery", "discovery", "Запиши в inbox: купить молоко")
    assert await inbox(client, "nina") == []

    await publish(client, step_changed("nina", "brain_dump", "inbox_collector"))
    assert await inbox_soon(client, "nina") == ["купить молоко"]

    first = await talk.say("inbox_collector", "brain_dump", "позвонить маме")
    assert "купить молоко" in first.message
    later = await talk.say("inbox_collector", "brain_dump", "оплатить налог")
    assert "купить молоко" not in later.message  # told once


async def test_a_step_of_another_agent_leaves_deferred_items_deferred(
    runner: AgentRunnerApp, client: Client
) -> None:
    talk = Conversation(client, "oleg")
    await talk.say("discovery", "discovery", "add to my inbox: renew passport")
    await publish(client, step_changed("oleg", "setup_complete", "coordinator"))
    await publish(client, step_changed("oleg", "brain_dump", None))  # an older publisher
    # A marker event after them: once it has been handled, so have the two before it.
    await runner.runner.inbox.add("marker", [NewInboxItem("m1", "marker item", "deferred")])
    await publish(client, step_changed("marker", "brain_dump", "inbox_collector"))
    assert await inbox_soon(client, "marker") == ["marker item"]
    assert await inbox(client, "oleg") == []


async def test_a_workflow_whose_first_step_is_the_brain_dump_promotes_at_start(
    runner: AgentRunnerApp, client: Client
) -> None:
    await runner.runner.inbox.add("pia", [NewInboxItem("p1", "water plants", "deferred")])
    started = WorkflowStarted(
        event_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
        user_id="pia",
        workflow_id="dump-only",
        instance_id="i-pia",
        initial_step="brain_dump",
        initial_agent="inbox_collector",
    )
    await publish(client, started)
    assert await inbox_soon(client, "pia") == ["water plants"]


async def test_a_database_of_the_second_schema_gains_the_announced_column(
    sqlite_url: str,
) -> None:
    engine = create_engine(sqlite_url)
    try:
        assert await migrate(engine, sql.COMPONENT, sql.STEPS[:2]) == 2
        async with engine.begin() as conn:  # the table as the second schema made it
            await conn.execute(text("ALTER TABLE agent_inbox_items DROP COLUMN announced"))
            for item_id, status in (("a", "new"), ("b", "deferred")):
                await conn.execute(
                    text(
                        "INSERT INTO agent_inbox_items VALUES "
                        "(:id, 'u', :id, 'onboarding', :status, CURRENT_TIMESTAMP)"
                    ),
                    {"id": item_id, "status": status},
                )
        assert await migrate(engine, sql.COMPONENT, sql.STEPS) == len(sql.STEPS)
        store = sql.SqlInboxStore(engine, lambda: datetime.now(UTC))
        assert await store.announce_promoted("u") == ["b"]
        assert await store.count("u", "new") == 2
    finally:
        await engine.dispose()
