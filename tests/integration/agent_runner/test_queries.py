"""`agent.query.inbox` and `agent.query.memory` over a real NATS, on Mem0 and on SQL memory."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from nats.aio.client import Client

from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.settings import AgentRunnerSettings
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import (
    Count,
    CountInboxItems,
    CountMemoryFacts,
    InboxItems,
    ListInboxItems,
    ListMemoryFacts,
    MemoryFact,
    MemoryFacts,
)
from baton_messaging import request

from .conftest import Conversation, settings

FACTS = [
    MemoryFact(category="priorities", key="work", text="My startup is my work"),
    MemoryFact(category="priorities", key="health", text="I run every morning"),
    MemoryFact(category="notes", key="book", text="Read Dune next, maybe every evening"),
]


@pytest.fixture(params=["mem0", "sql"])
async def app(
    nats_url: str, sqlite_url: str, request: pytest.FixtureRequest
) -> AsyncIterator[AgentRunnerApp]:
    app = build(settings(nats_url, sqlite_url, memory_backend=request.param))
    await app.start()
    for fact in FACTS:
        await app.runner.memory.put_fact("alice", fact.category, fact.key, fact.text)
    await app.runner.memory.put_fact("bob", "priorities", "health", "I run every morning")
    yield app
    await app.stop()


async def _facts(client: Client, **query: object) -> list[MemoryFact]:
    reply = await request(client, ListMemoryFacts(user_id="alice", **query), timeout=5.0)
    assert isinstance(reply, MemoryFacts)
    return reply.facts


async def test_memory_lists_the_users_facts_by_category_and_key(
    app: AgentRunnerApp, client: Client
) -> None:
    assert await _facts(client) == [FACTS[2], FACTS[1], FACTS[0]]
    assert await _facts(client, category="priorities") == [FACTS[1], FACTS[0]]
    assert await _facts(client, category="nothing") == []
    assert await _facts(client, limit=1) == [FACTS[2]]
    nobody = await request(client, ListMemoryFacts(user_id="carol"), timeout=5.0)
    assert nobody == MemoryFacts(facts=[])


async def test_memory_search_returns_the_nearest_facts_first(
    app: AgentRunnerApp, client: Client
) -> None:
    nearest = await _facts(client, query="I run every morning", limit=2)
    assert len(nearest) == 2 and nearest[0] == FACTS[1]
    assert len(await _facts(client, query="I run every morning")) == 3  # only alice's
    assert await _facts(client, query="I run every morning", category="notes") == [FACTS[2]]


async def test_inbox_lists_items_newest_first_without_deferred_ones(
    nats_url: str, sqlite_url: str, client: Client
) -> None:
    await _newest_first_without_deferred(client, settings(nats_url, sqlite_url))


async def test_inbox_lists_newest_first_on_postgres(
    nats_url: str, postgres_url: str, client: Client, tmp_path: Path
) -> None:
    config = settings(nats_url, postgres_url, memory_backend="sql", qdrant_path=tmp_path / "q")
    await _newest_first_without_deferred(client, config)


async def _newest_first_without_deferred(client: Client, config: AgentRunnerSettings) -> None:
    ticks = iter(range(100))
    start = datetime.now(UTC).replace(microsecond=0)
    app = build(config, now=lambda: start + timedelta(seconds=next(ticks)))
    await app.start()
    try:
        talk = Conversation(client, "dana")
        await talk.say("inbox_collector", "brain_dump", "pay rent")
        await talk.say("discovery", "discovery", "add to my inbox: buy milk")
        await Conversation(client, "erik").say("inbox_collector", "brain_dump", "not dana's")
        inbox = await request(client, ListInboxItems(user_id="dana"), timeout=5.0)
        assert isinstance(inbox, InboxItems)
        assert [item.content for item in inbox.items] == ["pay rent"]  # buy milk waits
        deferred = CountInboxItems(user_id="dana", status="deferred")
        assert await request(client, deferred, timeout=5.0) == Count(count=1)

        await talk.say("inbox_collector", "brain_dump", "fix bike\ncall mom")
        inbox = await request(client, ListInboxItems(user_id="dana"), timeout=5.0)
        assert isinstance(inbox, InboxItems)
        contents = [item.content for item in inbox.items]
        assert contents == ["call mom", "fix bike", "buy milk", "pay rent"]
        first = inbox.items[0]
        assert (first.source, first.status) == ("onboarding", "new")
        assert re.fullmatch(r"[0-9a-f]{32}", first.item_id) and first.created_at.tzinfo
        two = await request(client, ListInboxItems(user_id="dana", limit=2), timeout=5.0)
        assert isinstance(two, InboxItems) and [i.content for i in two.items] == contents[:2]
    finally:
        await app.stop()


@pytest.mark.parametrize(
    ("model", "body", "field"),
    [
        (ListInboxItems, {"user_id": "u", "limit": 0}, "limit"),
        (ListInboxItems, {"user_id": "u", "limit": 1001}, "limit"),
        (ListInboxItems, {"user_id": " "}, "user_id"),
        (ListMemoryFacts, {"user_id": "u", "category": ""}, "category"),
        (CountMemoryFacts, {"user_id": "u", "category": ""}, "category"),
        (ListMemoryFacts, {"user_id": "u", "query": ""}, "query"),
        (ListMemoryFacts, {"user_id": ""}, "user_id"),
    ],
)
async def test_bad_input_is_invalid_naming_the_field(
    runner: AgentRunnerApp, client: Client, model: type, body: dict[str, object], field: str
) -> None:
    with pytest.raises(RemoteError) as caught:
        await request(client, model.model_construct(**body), timeout=5.0)
    assert caught.value.code == ErrorCode.INVALID
    assert [detail.field for detail in caught.value.body.details] == [field]
