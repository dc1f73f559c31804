"""A crash after a turn's writes, before its reply is recorded: the retry writes nothing twice."""

from __future__ import annotations

from pathlib import Path

from nats.aio.client import Client

from baton_agent_runner.bootstrap import build
from baton_agent_runner.service.ports import Claim
from baton_agent_runner.settings import AgentRunnerSettings
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import (
    AgentReply,
    Count,
    CountInboxItems,
    CountMemoryFacts,
    InboxItems,
    ListInboxItems,
)
from baton_messaging import request

from .conftest import Conversation, settings


class CrashingReplyLog:
    """Remembers no reply, and fails the first time one is recorded: the crash window."""

    def __init__(self) -> None:
        self.crashes = 0

    async def get(self, user_id: str, key: str, digest: str | None = None) -> AgentReply | None:
        return None

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[AgentReply]:
        return Claim(mine=True)

    async def release(self, user_id: str, key: str) -> None:
        pass

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        if self.crashes == 0:
            self.crashes += 1
            raise RuntimeError("crashed after the writes, before the reply was recorded")
        return reply


async def _twice(talk: Conversation, agent: str, step: str, message: str, key: str) -> None:
    try:
        await talk.say(agent, step, message, key=key)
        raise AssertionError("the first attempt should have crashed")
    except RemoteError as exc:
        assert exc.code == ErrorCode.INTERNAL
    await talk.say(agent, step, message, key=key)  # the retry re-runs the model


async def test_a_retried_turn_adds_each_item_and_fact_once(
    nats_url: str, sqlite_url: str, client: Client
) -> None:
    await _retried_turns(client, settings(nats_url, sqlite_url))


async def test_a_retried_turn_adds_each_item_once_on_postgres(
    nats_url: str, postgres_url: str, client: Client, tmp_path: Path
) -> None:
    config = settings(nats_url, postgres_url, memory_backend="sql", qdrant_path=tmp_path / "q")
    await _retried_turns(client, config)


async def _retried_turns(client: Client, config: AgentRunnerSettings) -> None:
    replies = CrashingReplyLog()
    app = build(config, replies=replies)
    await app.start()
    try:
        talk = Conversation(client, "gus")
        await _twice(talk, "discovery", "discovery", "work; health", "k-facts")
        replies.crashes = 0
        await _twice(talk, "discovery", "discovery", "add to my inbox: buy milk", "k-later")
        replies.crashes = 0
        await _twice(talk, "inbox_collector", "brain_dump", "pay rent\nfix bike", "k-dump")
        facts = CountMemoryFacts(user_id="gus", category="priorities")
        assert await request(client, facts, timeout=5.0) == Count(count=2)
        inbox = await request(client, ListInboxItems(user_id="gus"), timeout=5.0)
        assert isinstance(inbox, InboxItems)
        assert sorted(i.content for i in inbox.items) == ["buy milk", "fix bike", "pay rent"]
        deferred = CountInboxItems(user_id="gus", status="deferred")
        assert await request(client, deferred, timeout=5.0) == Count(count=0)
    finally:
        await app.stop()


async def test_a_retried_turn_does_not_count_its_own_items_twice(
    nats_url: str, database_url: str, client: Client, tmp_path: Path
) -> None:
    # The first attempt saved both items and crashed before its reply was recorded; the retry
    # must answer as the first attempt did: two items so far, not four and "done".
    replies = CrashingReplyLog()
    config = settings(nats_url, database_url, memory_backend="sql", qdrant_path=tmp_path / "q")
    app = build(config, replies=replies)
    await app.start()
    try:
        talk = Conversation(client, "hal")
        message = "pay rent\nfix bike\nthat's all"
        try:
            await talk.say("inbox_collector", "brain_dump", message, key="k-dump")
            raise AssertionError("the first attempt should have crashed")
        except RemoteError as exc:
            assert exc.code == ErrorCode.INTERNAL
        retried = await talk.say("inbox_collector", "brain_dump", message, key="k-dump")
        assert "Items so far: 2." in retried.message
        assert retried.workflow_signal.action == "stay"
        assert await request(client, CountInboxItems(user_id="hal"), timeout=5.0) == Count(count=2)
    finally:
        await app.stop()
