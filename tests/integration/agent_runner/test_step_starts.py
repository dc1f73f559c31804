"""Deferred inbox items land in the inbox when the brain dump starts, not at its first turn."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from nats.aio.client import Client
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from sqlalchemy import text

from baton_agent_runner.adapters import sql, sql_stores
from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.entrypoints.subscribers import (
    CONSUMER,
    WORKFLOW_EVENTS_STREAM,
    step_start_filters,
)
from baton_contracts import durable_name
from baton_contracts.agent_api import InboxItems, ListInboxItems
from baton_contracts.workflow import StepChanged, WorkflowCompleted, WorkflowStarted
from baton_eventstore import create_engine, migrate
from baton_messaging import request

from .conftest import Conversation, settings

STEP_CHANGED_DURABLE = durable_name(f"{CONSUMER}-step-changed", WORKFLOW_EVENTS_STREAM.name)


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


def completed(user: str, instance: str) -> WorkflowCompleted:
    return WorkflowCompleted(
        event_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
        user_id=user,
        workflow_id="optional-dump",
        instance_id=instance,
        completed_at=datetime.now(UTC),
    )


async def publish(client: Client, event: StepChanged | WorkflowStarted | WorkflowCompleted) -> None:
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


async def delivered(client: Client, durable: str) -> int:
    """How many events the step-start durable has handed to the agent-runner so far."""
    info = await client.jetstream().consumer_info(WORKFLOW_EVENTS_STREAM.name, durable)
    return info.delivered.consumer_seq


async def test_only_the_starts_of_agents_with_actions_reach_the_agent_runner(
    runner: AgentRunnerApp, client: Client
) -> None:
    before = await delivered(client, STEP_CHANGED_DURABLE)
    for agent in ("greeter", "coordinator", None, "in.box"):  # in.box: no profile's slug
        await publish(client, step_changed("quinn", "some_step", agent))
    await runner.runner.inbox.add("quinn", [NewInboxItem("q1", "book dentist", "deferred")])
    await publish(client, step_changed("quinn", "brain_dump", "inbox_collector"))
    assert await inbox_soon(client, "quinn") == ["book dentist"]
    # JetStream kept the other four from the agent-runner: one delivery, not five.
    assert await delivered(client, STEP_CHANGED_DURABLE) == before + 1


async def test_an_event_in_the_layout_before_the_agent_token_is_still_acted_on(
    runner: AgentRunnerApp, client: Client
) -> None:
    """A workflow service not yet upgraded publishes on `...step_changed.<user>.<instance>`."""
    await runner.runner.inbox.add("rosa", [NewInboxItem("r1", "fix bike", "deferred")])
    event = step_changed("rosa", "brain_dump", "inbox_collector")
    legacy = f"workflow.evt.step_changed.{event.user_id}.{event.instance_id}"
    await client.jetstream().publish(legacy, event.to_bytes())
    assert await inbox_soon(client, "rosa") == ["fix bike"]


async def test_a_durable_of_the_earlier_layout_is_updated_at_start_and_keeps_its_place(
    nats_url: str, sqlite_url: str, client: Client
) -> None:
    js = client.jetstream()
    first = build(settings(nats_url, sqlite_url))  # makes the tables
    await first.start()
    await first.runner.inbox.add("sven", [NewInboxItem("s1", "call bank", "deferred")])
    await first.stop()
    old = ConsumerConfig(
        name=STEP_CHANGED_DURABLE,
        durable_name=STEP_CHANGED_DURABLE,
        filter_subject="workflow.evt.step_changed.*.*",
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.NEW,
    )
    await js.add_consumer(WORKFLOW_EVENTS_STREAM.name, old)  # as the earlier release left it
    app = build(settings(nats_url, sqlite_url))
    # Published while no agent-runner runs: the durable holds it for the next start.
    await publish(client, step_changed("sven", "brain_dump", "inbox_collector"))
    await app.start()
    try:
        assert await inbox_soon(client, "sven") == ["call bank"]
        info = await js.consumer_info(WORKFLOW_EVENTS_STREAM.name, STEP_CHANGED_DURABLE)
        assert info.config.filter_subjects == step_start_filters(StepChanged, ["inbox_collector"])
    finally:
        await app.stop()


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


async def test_a_database_of_the_second_schema_gains_the_later_columns(
    sqlite_url: str,
) -> None:
    engine = create_engine(sqlite_url)
    try:
        assert await migrate(engine, sql.COMPONENT, sql.STEPS[:2]) == 2
        async with engine.begin() as conn:  # the table as the second schema made it
            for later in ("announced", "turn_key", "instance_id"):  # steps 3, 6 and 7
                await conn.execute(text(f"ALTER TABLE agent_inbox_items DROP COLUMN {later}"))
            for item_id, status in (("a", "new"), ("b", "deferred")):
                await conn.execute(
                    text(
                        "INSERT INTO agent_inbox_items VALUES "
                        "(:id, 'u', :id, 'onboarding', :status, CURRENT_TIMESTAMP)"
                    ),
                    {"id": item_id, "status": status},
                )
        assert await migrate(engine, sql.COMPONENT, sql.STEPS) == len(sql.STEPS)
        store = sql_stores.SqlInboxStore(engine, lambda: datetime.now(UTC))
        assert [m.content for m in await store.unannounced("u")] == ["b"]
        assert await store.count("u", "new") == 2
        assert await store.count("u", "new", before_turn="t1") == 2  # turn_key is back, NULL
        await store.add("u", [NewInboxItem("c", "c", "deferred")], instance_id="i-u")
        assert await store.promote_deferred_of("u", "i-u") == 1  # instance_id is back
    finally:
        await engine.dispose()


async def test_an_instance_that_ends_moves_its_deferred_items_in_once(
    runner: AgentRunnerApp, client: Client
) -> None:
    """Its inbox step never started (skipped): the end is the last chance to move them."""
    talk = Conversation(client, "uma")  # its turns are of instance "i-1"
    await talk.say("discovery", "discovery", "Запиши в inbox: купить молоко")
    elsewhere = [NewInboxItem("u2", "of another instance", "deferred")]
    await runner.runner.inbox.add("uma", elsewhere, instance_id="i-2")
    end = completed("uma", "i-1")
    await publish(client, end)
    assert await inbox_soon(client, "uma") == ["купить молоко"]
    # Redelivered (published again under another id): nothing is moved twice, and the
    # deferred item of the instance still running stays deferred.
    await publish(client, end.model_copy(update={"event_id": uuid.uuid4()}))
    await runner.runner.inbox.add("marker2", [NewInboxItem("m2", "marker", "deferred")])
    await publish(client, completed("marker2", "i-m"))
    assert await inbox_soon(client, "marker2") == ["marker"]  # no instance: an older item
    assert await inbox(client, "uma") == ["купить молоко"]
    assert await runner.runner.inbox.count("uma", "new") == 1
    assert await runner.runner.inbox.count("uma", "deferred") == 1
    # Still unannounced: the next inbox step of the user tells them, as after a step start.
    told = [m.content for m in await runner.runner.inbox.unannounced("uma")]
    assert "купить молоко" in told
