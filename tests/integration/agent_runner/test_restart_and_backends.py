"""What survives a restart (facts, inbox, recorded replies), on Mem0 and on the SQL memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from nats.aio.client import Client

from baton_agent_runner.bootstrap import build
from baton_agent_runner.settings import AgentRunnerSettings
from baton_contracts.agent_api import Count, CountInboxItems, CountMemoryFacts
from baton_messaging import request

from .conftest import Conversation, settings


@pytest.mark.parametrize("backend", ["mem0", "sql"])
async def test_restart_on_sqlite(
    nats_url: str, sqlite_url: str, client: Client, backend: str
) -> None:
    await _restart_mid_conversation(client, settings(nats_url, sqlite_url, memory_backend=backend))


async def test_restart_on_postgres(
    nats_url: str, postgres_url: str, client: Client, tmp_path: Path
) -> None:
    config = settings(nats_url, postgres_url, memory_backend="sql", qdrant_path=tmp_path / "q")
    await _restart_mid_conversation(client, config)


async def _restart_mid_conversation(client: Client, config: AgentRunnerSettings) -> None:
    talk = Conversation(client, "frank")
    app = build(config)
    await app.start()
    await talk.say("discovery", "discovery", "work; health; growth")
    await talk.say("discovery", "discovery", "add to inbox: call bank")
    first = await talk.say("inbox_collector", "brain_dump", "pay rent", key="rent")
    await app.stop()

    app = build(config)
    await app.start()
    try:
        query = CountMemoryFacts(user_id="frank", category="priorities")
        assert await request(client, query, timeout=5.0) == Count(count=3)
        again = await talk.say("inbox_collector", "brain_dump", "pay rent", key="rent")
        assert again == first
        await talk.say("inbox_collector", "brain_dump", "fix bike")
        items = await request(client, CountInboxItems(user_id="frank"), timeout=5.0)
        assert items == Count(count=3)  # call bank, pay rent, fix bike
        assert (await talk.say("inbox_collector", "brain_dump", "that's all")).step_completed
    finally:
        await app.stop()
