"""The reply log shared by replicas: the first reply recorded under a key is the only one, on
SQLite and PostgreSQL (the `engine` fixture)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql_logs

from .conftest import stay_reply


async def test_a_second_replica_recording_the_same_key_gets_the_first_reply(
    engine: AsyncEngine,
) -> None:
    log = sql_logs.SqlReplyLog(engine, lambda: datetime.now(UTC))
    first = stay_reply("first")
    assert await log.put("alice", "k", first) == first
    assert await log.put("alice", "k", stay_reply("second")) == first
    assert await log.get("alice", "k") == first
    assert await log.get("bob", "k") is None
    assert await log.put("bob", "k", stay_reply("bob's")) == stay_reply("bob's")
