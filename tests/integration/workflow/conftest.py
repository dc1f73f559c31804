"""The workflow service in-process on a real NATS, with a fake agent-runner answering on NATS."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any

import nats
import pytest
from nats.aio.client import Client

from baton_contracts import Message, Query, RemoteError
from baton_contracts.agent_api import Count, CountInboxItems, CountMemoryFacts
from baton_eventstore import SqlEventStore, Step, migrate
from baton_messaging import MessagingSettings, build_broker, request, respond, start_broker
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.settings import WorkflowSettings


@dataclass
class FakeAgentRunner:
    """Answers the checker queries over NATS with counts the test sets."""

    facts: dict[str, int] = field(default_factory=dict)
    items: dict[str, int] = field(default_factory=dict)
    delay: float = 0.0
    fail: bool = False

    async def count_facts(self, query: CountMemoryFacts) -> Count:
        return await self._answer(self.facts.get(query.user_id, 0))

    async def count_items(self, query: CountInboxItems) -> Count:
        return await self._answer(self.items.get(query.user_id, 0))

    async def _answer(self, count: int) -> Count:
        await asyncio.sleep(self.delay)
        if self.fail:
            raise RuntimeError("memory store unavailable")
        return Count(count=count)


@contextlib.asynccontextmanager
async def serving(nats_url: str, fake: FakeAgentRunner) -> AsyncIterator[FakeAgentRunner]:
    """`fake` answering the checker queries on NATS while the block runs."""
    broker = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner")
    respond(broker, CountMemoryFacts, fake.count_facts, queue="agent")
    respond(broker, CountInboxItems, fake.count_items, queue="agent")
    await start_broker(broker)
    try:
        yield fake
    finally:
        await broker.stop()


@pytest.fixture
async def agent_runner(nats_url: str) -> AsyncIterator[FakeAgentRunner]:
    async with serving(nats_url, FakeAgentRunner()) as fake:
        yield fake


def workflow_settings(nats_url: str, database_url: str, **extra: Any) -> WorkflowSettings:
    return WorkflowSettings(
        nats_url=nats_url, database_url=database_url, checker_timeout_seconds=1.0, **extra
    )


@pytest.fixture
async def workflow(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> AsyncIterator[WorkflowApp]:
    app = build(workflow_settings(nats_url, sqlite_url))
    await app.start()
    yield app
    await app.stop()


@pytest.fixture
async def client(nats_url: str) -> AsyncIterator[Client]:
    nc = await nats.connect(nats_url)
    yield nc
    await nc.close()


async def ask(nc: Client, message: Message, timeout: float = 5.0) -> Any:
    """Send a request and return the typed reply (raises RemoteError)."""
    assert isinstance(message, Query) or hasattr(message, "reply_model")
    return await request(nc, message, timeout=timeout)


__all__ = ["FakeAgentRunner", "RemoteError", "ask", "workflow_settings"]


GATEWAY_SECRET = "workflow-http-tests-secret-32-bytes!"


@pytest.fixture
async def gateway(nats_url: str, workflow: WorkflowApp) -> AsyncIterator[Any]:
    """The notifier's HTTP app on the same NATS, as an httpx client; `token(user)` for headers."""
    import httpx

    from baton_auth import mint_token
    from baton_notifier.bootstrap import build as build_notifier
    from baton_notifier.settings import NotifierSettings

    settings = NotifierSettings(
        nats_url=nats_url, jwt_secret=GATEWAY_SECRET, request_timeout_seconds=5.0
    )
    notifier = build_notifier(settings)
    await notifier.start()
    assert notifier.link is not None
    await notifier.link.wait_started()
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        http.token = lambda user: {  # type: ignore[attr-defined]
            "Authorization": f"Bearer {mint_token(GATEWAY_SECRET, user)}"
        }
        yield http
    await notifier.stop()


async def refused(call: Awaitable[object]) -> RemoteError | None:
    """The `RemoteError` the call raised, or None when it was answered."""
    try:
        await call
    except RemoteError as exc:
        return exc
    return None


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str:
    """A fresh database on each backend a store test reads (PostgreSQL's skips without it)."""
    return str(request.getfixturevalue(f"{request.param}_url"))


@contextlib.asynccontextmanager
async def migrated_store(
    url: str, component: str, steps: Sequence[Step]
) -> AsyncIterator[SqlEventStore]:
    """An event store on `url` with `component`'s tables migrated, closed after."""
    store = await SqlEventStore.from_url(url)
    await migrate(store.engine, component, steps)
    try:
        yield store
    finally:
        await store.close()


async def on_stream(client: Client, user: str) -> Counter[str]:
    """How often each of the user's events is on the workflow's stream."""
    sub = await client.jetstream().pull_subscribe(f"workflow.evt.*.{user}.>", durable=None)
    seen: Counter[str] = Counter()
    while True:
        try:
            batch = await sub.fetch(100, timeout=1)
        except TimeoutError:  # nats-py raises its own subclass of it
            break
        for msg in batch:
            seen[json.loads(msg.data)["event_id"]] += 1
    await sub.unsubscribe()
    return seen
