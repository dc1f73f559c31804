"""A pooled PostgreSQL connection the server ended while it sat idle (`pg_terminate_backend`,
a restart, a failover) is replaced at checkout, not handed to a statement that then fails.

Seen while cutting PostgreSQL's connections under load: the agent-runner's next statement on
each such connection failed (`connection is closed`), answering `unavailable`, and a DAG step
that asked at that moment failed with its run."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore import create_engine
from baton_eventstore.unavailable import StoreUnavailable

from ...postgres_sessions import end_backends, fail_first

pytestmark = pytest.mark.postgres


@pytest.fixture
async def engine(postgres_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(postgres_url, pool_size=1)  # one connection: the one cut is reused
    yield engine
    await engine.dispose()


async def cut_the_pooled_connection(engine: AsyncEngine, postgres_url: str) -> None:
    """End the pool's one connection from the server side, and wait until its client knows."""
    async with engine.connect() as conn:
        backend = await conn.scalar(text("SELECT pg_backend_pid()"))
        raw = await conn.get_raw_connection()
        driver: Any = raw.driver_connection
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", backend)
    finally:
        await admin.close()
    for _ in range(200):
        if driver.is_closed():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the client never saw its connection end")


async def test_a_statement_after_the_server_ended_the_pooled_connection_runs(
    engine: AsyncEngine, postgres_url: str
) -> None:
    await cut_the_pooled_connection(engine, postgres_url)
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT 1")) == 1


async def test_a_raw_connection_after_the_server_ended_it_is_a_live_one(
    engine: AsyncEngine, postgres_url: str
) -> None:
    await cut_the_pooled_connection(engine, postgres_url)
    pooled = await engine.raw_connection()  # the agent-runner's hot path takes these
    try:
        assert await pooled.driver_connection.fetchval("SELECT 1") == 1  # type: ignore[union-attr]
    finally:
        pooled.close()


async def test_a_raw_pool_connection_the_server_ends_mid_use_is_reported_as_unavailable(
    postgres_url: str,
) -> None:
    """The append pool's connection cut while in use: asyncpg has already handed it back to
    its pool, so terminating it again must not replace the outage with `InterfaceError:
    cannot call Connection.terminate(): connection has been released back to the pool` (seen
    in the relay's log under `pg_terminate_backend`), which names no outage."""
    from baton_eventstore.asyncpg_pool import LazyPool

    engine = create_engine(postgres_url, pool_size=1)
    pool = LazyPool(engine)
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        with pytest.raises(StoreUnavailable) as caught:
            async with pool.connection() as conn:
                backend = await conn.fetchval("SELECT pg_backend_pid()")
                statement = asyncio.ensure_future(conn.fetchval("SELECT pg_sleep(5)"))
                await asyncio.sleep(0.2)  # the statement is running when its session ends
                assert await admin.fetchval("SELECT pg_terminate_backend($1)", backend)
                await statement
        assert "released back to the pool" not in str(caught.value)
        async with pool.connection() as conn:  # the pool goes on with a new connection
            assert await conn.fetchval("SELECT 1") == 1
    finally:
        await admin.close()
        await pool.close()
        await engine.dispose()


async def test_reads_on_the_append_pool_after_the_server_ended_its_connections_succeed(
    postgres_url: str,
) -> None:
    """A restart or failover ends every session of the store's asyncpg pool, and the next
    statements come before asyncpg has read that (`InternalClientError: cannot switch to
    state 12 ...`, `connection was closed in the middle of operation`): each pooled
    connection failed one `load` with `unavailable` (a 503 of the workflow service). A read
    runs again on a new connection, and the pool's other old connections are expired."""
    from baton_eventstore import NewEvent, SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    assert store.appender is not None
    stream = f"closed-{uuid.uuid4()}"
    await store.append(stream, 0, [NewEvent(uuid.uuid4(), "test.happened", {})])
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    held = "SELECT pg_backend_pid() FROM pg_sleep(0.05)"  # both connections in use at once
    try:
        for _ in range(5):
            answers = await asyncio.gather(store.appender.fetch(held), store.appender.fetch(held))
            backends = [rows[0][0] for rows in answers]
            await end_backends(admin, backends)
            for _ in range(3):  # more than the pool holds
                assert [event.version for event in await store.load(stream)] == [1]
    finally:
        await admin.close()
        await store.close()


async def test_an_append_the_server_never_saw_is_written_on_a_new_connection(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """asyncpg sends nothing on a connection whose protocol is stuck after the server ended
    its session: the append goes again, once, and the log says what happened in plain words."""
    from baton_eventstore import NewEvent, SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    stream = f"closed-{uuid.uuid4()}"
    stuck = asyncpg.InternalClientError(
        "cannot switch to state 12; another operation (2) is in progress"
    )
    calls = fail_first(monkeypatch, "fetch", stuck)
    try:
        with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
            positions = await store.append(stream, 0, [NewEvent(uuid.uuid4(), "test.a", {})])
        assert len(positions) == 1 and len(calls) == 2
        assert "the database connection was lost (the server closed it); retried" in caplog.text
        monkeypatch.undo()
        assert [event.version for event in await store.load(stream)] == [1]
    finally:
        await store.close()


async def test_an_append_cut_off_mid_statement_is_not_sent_again(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server may have committed an append before its connection closed: it fails,
    `unavailable`, saying why, and is not written a second time (the caller's command id
    decides whether to try again)."""
    from baton_eventstore import NewEvent, SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    stream = f"closed-{uuid.uuid4()}"
    cut = asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
    calls = fail_first(monkeypatch, "fetch", cut)
    try:
        with pytest.raises(StoreUnavailable, match=r"connection was lost \(the server closed it\)"):
            await store.append(stream, 0, [NewEvent(uuid.uuid4(), "test.a", {})])
        assert len(calls) == 1
        monkeypatch.undo()
        assert await store.load(stream) == []
    finally:
        await store.close()


async def test_reads_on_the_engine_after_the_server_ended_its_connections_succeed(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The SQLAlchemy pool of the store's reads (the workflow's read models), cut as a restart
    cuts it: SQLAlchemy took only asyncpg's `is_closed()` for a lost connection, so one the
    server ended a moment ago (`InternalClientError: cannot switch to state 15 ...`) went
    back to the pool, and each pooled connection failed one read with `unavailable`. A read
    runs again on a new connection, the pool's old ones are dropped, and the log says so."""
    from baton_eventstore import SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))

    async def backend_held_a_while() -> int:
        async with store.reader.connect() as conn:
            pid = await conn.scalar(text("SELECT pg_backend_pid()"))
            await asyncio.sleep(0.05)  # both pooled connections are in use at once
        return int(pid)

    try:
        with caplog.at_level("WARNING", logger="baton_eventstore.engine"):
            for _ in range(5):
                backends = list(
                    await asyncio.gather(backend_held_a_while(), backend_held_a_while())
                )
                await end_backends(admin, backends)
                for _ in range(3):  # more than the pool holds
                    pid = (await store.read(text("SELECT pg_backend_pid()"))).scalar()
                    assert pid not in backends
        assert "the database connection was lost (the server closed it); retried" in caplog.text
    finally:
        await admin.close()
        await store.close()
