"""A stop (SIGTERM, a rolling deploy) while the workflow's PostgreSQL hangs (stopped with
SIGSTOP, cut off by the network without a reset) ends within the service's own bounds, and
says it gave up on the database.

Each pooled connection was closed with a goodbye asyncpg then waited on for a statement's
bound (the statement timeout and the client's 1 s), one after another: a minute on a pool of
20, past any orchestrator's grace. The relay's release of its lease failing on the way raised
out of the stop, which left the broker and the pools open."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import Counter

import pytest
from nats.aio.client import Client
from sqlalchemy import text

from baton_contracts.workflow_api import StartWorkflow
from baton_eventstore import SqlEventStore
from baton_eventstore.closing import GAVE_UP
from baton_workflow.adapters.instances import stream_id
from baton_workflow.bootstrap import STOP_AFTER_GRACE_SECONDS, WorkflowApp, build

from ...frozen_proxy import FrozenProxy
from .conftest import FakeAgentRunner, RemoteError, ask, on_stream, workflow_settings

HANG = 60.0  # only stops the test hanging
POOLED = 6  # connections in each pool before the freeze


def start() -> StartWorkflow:
    return StartWorkflow(user_id=f"f{uuid.uuid4().hex[:6]}", workflow_id="onboarding")


async def warm(app: WorkflowApp) -> None:
    """Several connections in both of the store's pools, as a busy service holds."""
    engine = app.store.engine

    async def read() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT pg_sleep(0.05)"))

    await asyncio.gather(*(read() for _ in range(POOLED)))
    await asyncio.gather(*(app.store.load(f"none-{n}") for n in range(POOLED)))


@pytest.mark.postgres
@pytest.mark.timeout(120)
async def test_a_stop_while_the_database_hangs_ends_in_time(
    nats_url: str,
    postgres_url: str,
    client: Client,
    agent_runner: FakeAgentRunner,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with FrozenProxy(postgres_url).running() as proxy:
        settings = workflow_settings(
            nats_url, proxy.proxied_url, stop_grace_seconds=1.0,
            database_statement_timeout_seconds=0.5,
        )  # fmt: skip
        app = build(settings)
        await app.start()
        await ask(client, start())
        await warm(app)
        proxy.freeze()
        began = time.monotonic()
        with caplog.at_level(logging.WARNING):
            await asyncio.wait_for(app.stop(), HANG)
        took = time.monotonic() - began
        where = proxy.proxied_url.split("@", 1)[1]
    # Each of its waits gives up at a statement's bound or by the stop's one deadline, the
    # two pools' goodbyes together last. Before that deadline: the grace, then 2 statement
    # bounds (the relay's) and 1 s of goodbyes per pool, one after the other.
    bound = settings.stop_grace_seconds + STOP_AFTER_GRACE_SECONDS
    assert took < bound + 1.0, took  # 1 s for a loaded host; the engine's goodbyes alone took 9
    gave_up = [r.getMessage() for r in caplog.records if r.getMessage().startswith(GAVE_UP)]
    assert len(gave_up) == 1, gave_up
    assert where in gave_up[0]


@pytest.mark.postgres
async def test_a_stop_on_a_database_that_answers_closes_at_once(
    nats_url: str,
    postgres_url: str,
    client: Client,
    agent_runner: FakeAgentRunner,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = build(workflow_settings(nats_url, postgres_url))
    await app.start()
    await ask(client, start())
    await warm(app)
    with caplog.at_level(logging.WARNING):
        await app.stop()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    store = await SqlEventStore.from_url(postgres_url)
    try:
        assert await store.outbox.count() == 0  # published, and deleted, before the stop ended
    finally:
        await store.close()


@pytest.mark.postgres
@pytest.mark.timeout(120)
async def test_a_stop_with_a_relay_batch_in_flight_ends_within_its_grace_and_a_few_seconds(
    nats_url: str, postgres_url: str, client: Client, agent_runner: FakeAgentRunner
) -> None:
    """On the default statement timeout: the relay's batch in flight at the freeze, its last
    flush and its tidying up each waited out a statement's bound, one after another, and the
    pools' goodbyes came after them: about the 15 s `baton up` gives before SIGKILL."""
    async with FrozenProxy(postgres_url).running() as proxy:
        settings = workflow_settings(nats_url, proxy.proxied_url, stop_grace_seconds=1.0)
        app = build(settings)
        await app.start()
        await ask(client, start())
        await warm(app)
        proxy.freeze()
        in_flight = asyncio.create_task(ask(client, start()))  # waits on the database
        await asyncio.sleep(0.7)  # and the relay's next fetch (every 0.5 s) is in flight
        began = time.monotonic()
        await asyncio.wait_for(app.stop(), HANG)
        took = time.monotonic() - began
        with pytest.raises(RemoteError):  # answered unavailable: nothing was committed
            await in_flight
    # The grace is spent on the request in flight, and the rest shares one deadline.
    assert took < settings.stop_grace_seconds + STOP_AFTER_GRACE_SECONDS + 1.0, took  # loaded host


@pytest.mark.postgres
@pytest.mark.timeout(120)
async def test_events_committed_before_the_freeze_are_published_once_after_a_restart(
    nats_url: str, postgres_url: str, client: Client, agent_runner: FakeAgentRunner
) -> None:
    """A stop that gave up on the database leaves what it did not publish in the outbox (a
    row is deleted only once JetStream acknowledged it): the next start publishes it, and
    what was published before the freeze is not sent twice."""
    async with FrozenProxy(postgres_url).running() as proxy:
        settings = workflow_settings(nats_url, proxy.proxied_url, stop_grace_seconds=0.5)
        app = build(settings)
        await app.start()
        starts = [start() for _ in range(8)]
        replies = await asyncio.gather(*(ask(client, s) for s in starts))
        proxy.freeze()  # some rows published and not deleted yet, maybe some not published
        await asyncio.wait_for(app.stop(), HANG)
        proxy.thaw()
        again = build(settings)
        await again.start()
        try:
            assert again.relay is not None
            await again.relay.drain()
            assert await again.store.outbox.count() == 0
            for s, reply in zip(starts, replies, strict=True):
                events = await again.store.load(stream_id(str(reply.instance.instance_id)))
                expected = Counter(str(e.event_id) for e in events)
                assert expected and await on_stream(client, s.user_id) == expected
        finally:
            await again.stop()
