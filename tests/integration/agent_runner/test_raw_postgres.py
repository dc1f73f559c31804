"""The hot-path statements on the pooled asyncpg connections: a connection that dies or a
statement cut off by a deadline leaves the pool working, never a broken connection in it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import raw_postgres, sql, sql_logs
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import StoreUnavailable
from baton_contracts.agent_api import TaskResult, TokenUsage
from baton_eventstore import create_engine, migrate

from ...postgres_sessions import end_backends, fail_first, kill_other_sessions, stick_protocol

PID = "SELECT pg_backend_pid()"
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


async def test_reads_after_the_server_ended_every_pooled_connection_succeed(
    engine: AsyncEngine, postgres_url: str
) -> None:
    """A PostgreSQL restart or failover ends every session at once, and the next statements
    come before asyncpg has read the end of each pooled connection (`InternalClientError:
    cannot switch to state ...; another operation (2) is in progress`, or `connection was
    closed in the middle of operation`): each such connection failed one caller's read with
    `unavailable` (a 503). The read runs again on a new connection instead."""
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))

    async def pid_held_a_while() -> int:
        pid = await raw_postgres.fetchval(engine, "test", PID, repeatable=True)
        await asyncio.sleep(0.05)  # both pooled connections are in use at once
        return int(pid)

    try:
        for _ in range(5):
            backends = list(await asyncio.gather(pid_held_a_while(), pid_held_a_while()))
            await end_backends(admin, backends)
            for _ in range(3):  # more than the pool holds
                pid = await raw_postgres.fetchval(engine, "test", PID, repeatable=True)
                assert pid not in backends
    finally:
        await admin.close()


async def test_a_write_the_server_never_saw_runs_again_on_a_new_connection(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """asyncpg sends nothing on a connection whose protocol is stuck after the server ended
    its session: a write, too, is safe to run again, and the log says what happened."""
    stuck = asyncpg.InternalClientError(
        "cannot switch to state 12; another operation (2) is in progress"
    )
    calls = fail_first(monkeypatch, "fetchval", stuck)
    with caplog.at_level("WARNING", logger="baton.agent_runner"):
        assert await raw_postgres.fetchval(engine, "test", "SELECT $1::int + 1", 41) == 42
    assert len(calls) == 2
    assert "the database connection was lost (the server closed it); retried on a new" in (
        caplog.text
    )


async def test_a_write_cut_off_mid_statement_is_not_run_again(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server may have committed a write before its connection closed: unless the caller
    says running it twice is harmless (`repeatable`), it fails, `unavailable`, and says why."""
    cut = asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
    calls = fail_first(monkeypatch, "fetchval", cut)
    with pytest.raises(StoreUnavailable, match=r"connection was lost \(the server closed it\)"):
        await raw_postgres.fetchval(engine, "test", "SELECT $1::int + 1", 41)
    assert len(calls) == 1
    # A read may run again.
    assert await raw_postgres.fetchval(engine, "test", "SELECT 2") == 2
    calls.clear()
    assert await raw_postgres.fetchval(engine, "test", "SELECT 3", repeatable=True) == 3
    assert calls == ["SELECT 3", "SELECT 3"]


async def test_sqlalchemy_reads_after_the_server_ended_every_pooled_connection_succeed(
    engine: AsyncEngine, postgres_url: str
) -> None:
    """The agent-runner's reads through SQLAlchemy (the memory store here) meet the same
    connections after a restart, and SQLAlchemy took only asyncpg's `is_closed()` for a lost
    one: each failed a read with `unavailable`. They run again on a new connection."""
    from sqlalchemy import text

    from baton_agent_runner.adapters.sql_stores import SqlMemoryStore

    memory = SqlMemoryStore(engine, lambda: datetime.now(UTC))
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))

    async def backend_held_a_while() -> int:
        async with engine.connect() as conn:
            pid = await conn.scalar(text(PID))
            await asyncio.sleep(0.05)  # both pooled connections are in use at once
        return int(pid)

    try:
        for _ in range(5):
            backends = list(await asyncio.gather(backend_held_a_while(), backend_held_a_while()))
            await end_backends(admin, backends)
            for _ in range(3):  # more than the pool holds
                assert await memory.count(f"nobody-{uuid.uuid4()}", None) == 0
    finally:
        await admin.close()
