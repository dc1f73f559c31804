"""The reply log shared by replicas: the first reply recorded under a key is the only one."""

from __future__ import annotations

from datetime import UTC, datetime

from baton_agent_runner.adapters import sql, sql_logs
from baton_eventstore import create_engine, migrate

from .conftest import stay_reply


async def test_a_second_replica_recording_the_same_key_gets_the_first_reply_on_sqlite(
    sqlite_url: str,
) -> None:
    await _first_writer_wins(sqlite_url)


async def test_a_second_replica_recording_the_same_key_gets_the_first_reply_on_postgres(
    postgres_url: str,
) -> None:
    await _first_writer_wins(postgres_url)


async def _first_writer_wins(url: str) -> None:
    engine = create_engine(url)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    log = sql_logs.SqlReplyLog(engine, lambda: datetime.now(UTC))
    first = stay_reply("first")
    try:
        assert await log.put("alice", "k", first) == first
        assert await log.put("alice", "k", stay_reply("second")) == first
        assert await log.get("alice", "k") == first
        assert await log.get("bob", "k") is None
        assert await log.put("bob", "k", stay_reply("bob's")) == stay_reply("bob's")
    finally:
        await engine.dispose()
