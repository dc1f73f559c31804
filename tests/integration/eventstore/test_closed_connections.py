"""A pooled PostgreSQL connection the server ended while it sat idle (`pg_terminate_backend`,
a restart, a failover) is replaced at checkout, not handed to a statement that then fails.

Seen while cutting PostgreSQL's connections under load: the agent-runner's next statement on
each such connection failed (`connection is closed`), answering `unavailable`, and a DAG step
that asked at that moment failed with its run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore import create_engine

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
    from baton_eventstore.unavailable import StoreUnavailable

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
