"""Mem0's embedder by settings: an OpenAI-compatible endpoint (the fake server on 127.0.0.1),
a dead endpoint, and a Qdrant collection made for vectors of another size."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client

from baton_agent_runner.adapters.embedders import EmbeddingDimsMismatch
from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import Count, CountMemoryFacts, ListMemoryFacts, MemoryFacts
from baton_messaging import request

from .conftest import Conversation, settings
from .fake_openai import FakeOpenAI


def _openai(fake: FakeOpenAI, **extra: Any) -> dict[str, Any]:
    return {
        "embedder": "openai",
        "embedder_base_url": f"http://127.0.0.1:{fake.server_address[1]}/v1",
        "embedder_model": "fake-embed",
        "embedding_dims": fake.dims,
        "embedder_timeout_seconds": 0.3,
        "embedder_max_retries": 0,
        **extra,
    }


@pytest.fixture
async def embedded(
    nats_url: str, sqlite_url: str, fake_openai: FakeOpenAI
) -> AsyncIterator[AgentRunnerApp]:
    app = build(settings(nats_url, sqlite_url, **_openai(fake_openai)))
    await app.start()
    yield app
    await app.stop()


async def test_openai_embedder_stores_and_searches_by_the_endpoints_vectors(
    embedded: AgentRunnerApp, client: Client, fake_openai: FakeOpenAI
) -> None:
    memory = embedded.runner.memory
    await memory.put_fact("ann", "priorities", "health", "I run every morning before work")
    await memory.put_fact("ann", "priorities", "work", "The startup launch is my main project")
    await memory.put_fact("ann", "priorities", "family", "Dinner with my parents on Sundays")
    query = ListMemoryFacts(user_id="ann", query="morning run", limit=1)
    found = await request(client, query, timeout=5.0)
    assert isinstance(found, MemoryFacts) and [f.key for f in found.facts] == ["health"]
    sent = [body for body in fake_openai.requests if body.get("model") == "fake-embed"]
    assert len(sent) == 4 and sent[-1]["input"] == ["morning run"]
    assert all(body["encoding_format"] == "float" for body in sent)


async def test_dead_endpoint_fails_within_the_embedder_timeout(
    embedded: AgentRunnerApp, client: Client, fake_openai: FakeOpenAI
) -> None:
    fake_openai.mode = "slow"  # answers after 1.5 s; the embedder gives up after 0.3 s
    with pytest.raises(RemoteError) as caught:
        await request(client, ListMemoryFacts(user_id="ann", query="anything"), timeout=5.0)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "memory store" in caught.value.body.message
    assert len(fake_openai.requests) == 1  # no retries
    with pytest.raises(RemoteError) as turn:  # a turn that saves a fact cannot either
        await Conversation(client, "ann").say("discovery", "discovery", "work matters")
    assert turn.value.code == ErrorCode.UNAVAILABLE
    fake_openai.mode = "valid"
    reply = await request(client, ListMemoryFacts(user_id="ann", query="anything"), timeout=5.0)
    assert reply == MemoryFacts(facts=[])


async def test_collection_of_other_dimensions_stops_start_up_and_keeps_the_data(
    nats_url: str, sqlite_url: str, client: Client, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    hashed = settings(nats_url, sqlite_url, qdrant_path=tmp_path / "qdrant")
    app = build(hashed)  # the default hash embedder: 64 dimensions
    await app.start()
    await app.runner.memory.put_fact("ann", "priorities", "work", "my startup")
    await app.stop()

    other = settings(nats_url, sqlite_url, qdrant_path=tmp_path / "qdrant", **_openai(fake_openai))
    with pytest.raises(EmbeddingDimsMismatch) as caught:
        build(other)
    assert "64" in str(caught.value) and str(fake_openai.dims) in str(caught.value)
    assert fake_openai.requests == []  # refused before a single vector was made

    app = build(hashed)
    await app.start()
    try:
        facts = CountMemoryFacts(user_id="ann")
        assert await request(client, facts, timeout=5.0) == Count(count=1)
    finally:
        await app.stop()
