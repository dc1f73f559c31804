"""The hot-path statements on the pooled asyncpg connections: a connection that dies or a
statement cut off by a deadline leaves the pool working, never a broken connection in it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import raw_postgres, sql, sql_logs
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import StoreUnavailable
from baton_contracts.agent_api import TaskResult, TokenUsage
from baton_eventstore import create_engine, migrate

from ...postgres_sessions import kill_other_sessions, stick_protocol

CALL = TaskCall(agent="default", run_id="r", step_id="a", prompt="say ok")
RESULT = TaskResult(output="ok", usage=TokenUsage(), cost_usd=0.0, agent="default", model="x")


@pytest.fixture
async def engine(postgres_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(postgres_url, pool_size=2)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    yield engine
    await engine.dispose()


async def test_a_dead_connection_is_replaced(engine: AsyncEngine, postgres_url: str) -> None:
    log = sql_logs.SqlTaskLog(engine, lambda: datetime.now(UTC))
    await log.put("u", "k1", CALL, RESULT)
    await kill_other_sessions(postgres_url)
    # A connection asyncpg knows is closed is replaced as it is checked out (the engine's
    # checkout check); one whose end it has not read yet fails its statement, once, and goes.
    try:
        first = await log.get("u", "k1")
    except StoreUnavailable:
        first = RESULT
    assert first == RESULT
    for _ in range(3):
        assert await log.get("u", "k1") == RESULT


async def test_a_statement_cut_off_by_a_deadline_leaves_the_pool_working(
    engine: AsyncEngine,
) -> None:
    for _ in range(3):  # more than the pool holds
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await raw_postgres.fetchval(engine, "test", "SELECT pg_sleep(5)")
    async with asyncio.timeout(2):
        assert await raw_postgres.fetchval(engine, "test", "SELECT $1::int + 1", 41) == 42


async def test_a_connection_whose_protocol_is_stuck_is_dropped(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a session the server ended while it sat idle in the pool does to asyncpg."""
    first = await raw_postgres.fetchval(engine, "test", "SELECT pg_backend_pid()")
    stuck = stick_protocol(monkeypatch, "fetchval")
    with pytest.raises(StoreUnavailable, match="InternalClientError"):
        await raw_postgres.fetchval(engine, "test", "SELECT 1")
    monkeypatch.undo()
    assert stuck and stuck[0].is_closed()
    # The pool let it go: the next call runs on a new session.
    assert await raw_postgres.fetchval(engine, "test", "SELECT pg_backend_pid()") != first
