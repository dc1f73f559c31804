"""A PostgreSQL that takes no writes (the old primary after a failover, demoted to a standby,
or a connection that reached a standby) is an outage the next connection may not have: its
write is `unavailable` with nothing written, and the connection is dropped, not pooled.

Such a write failed with `ReadOnlySQLTransactionError` (SQLSTATE 25006), which was taken for
a bug (`internal`, a traceback), and the pool kept the connection: every write on it failed
until the pool recycled it, half an hour later. `SET SESSION default_transaction_read_only`
makes one pooled connection such a connection."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore import create_engine
from baton_eventstore.asyncpg_pool import LazyPool
from baton_eventstore.unavailable import StoreUnavailable, is_unavailable, nothing_written

pytestmark = pytest.mark.postgres

READ_ONLY = "SET SESSION default_transaction_read_only = on"


@pytest.fixture
async def engine(postgres_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(postgres_url, pool_size=1)  # one connection: the read-only one
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (x INTEGER)"))
    yield engine
    await engine.dispose()


async def test_a_write_the_server_refuses_as_read_only_is_unavailable_and_drops_the_connection(
    engine: AsyncEngine,
) -> None:
    async with engine.connect() as conn:
        await conn.execute(text(READ_ONLY))
        await conn.commit()
    with pytest.raises(DBAPIError) as refused:
        async with engine.begin() as conn:
            await conn.execute(text("INSERT INTO t VALUES (1)"))
    assert is_unavailable(refused.value) and nothing_written(refused.value)
    async with engine.begin() as conn:  # a new connection: the read-only one was dropped
        await conn.execute(text("INSERT INTO t VALUES (2)"))
    async with engine.connect() as conn:
        assert (await conn.execute(text("SELECT x FROM t"))).scalars().all() == [2]


async def test_the_append_pools_read_only_connection_is_unavailable_and_not_given_again(
    engine: AsyncEngine,
) -> None:
    pool = LazyPool(engine)
    try:
        async with pool.connection() as conn:
            await conn.execute(READ_ONLY)
        with pytest.raises(StoreUnavailable) as refused:
            async with pool.connection() as conn:
                await conn.execute("INSERT INTO t VALUES (1)")
        assert nothing_written(refused.value)
        async with pool.connection() as conn:
            await conn.execute("INSERT INTO t VALUES (2)")
            assert await conn.fetchval("SELECT array_agg(x) FROM t") == [2]
    finally:
        await pool.close()
