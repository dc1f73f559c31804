"""A store's statements are bounded (`create_engine(statement_timeout=...)`): an append held up
by a lock past the bound fails as unavailable, having written nothing, and writes nothing once
the lock goes; a migration still waits for another as long as it must."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import Connection

from baton_eventstore import NewEvent, SqlEventStore, create_engine, is_unavailable, migrate
from baton_eventstore.asyncpg_pool import LazyPool
from baton_eventstore.migrations import _LOCK_KEY

from ...database_locks import TableLock, file_locked

TIMEOUT = 0.2


def _dsn(postgres_url: str) -> str:
    return postgres_url.replace("postgresql+asyncpg://", "postgresql://", 1)


def event() -> NewEvent:
    return NewEvent(uuid.uuid4(), "t.happened", {"n": 1})


@pytest.mark.postgres
async def test_the_bound_is_every_session_s_on_both_pools(postgres_url: str) -> None:
    engine = create_engine(postgres_url, statement_timeout=TIMEOUT)
    pool = LazyPool(engine)
    try:
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("SHOW statement_timeout")).scalar() == "200ms"
        async with pool.connection() as raw:
            assert await raw.fetchval("SHOW statement_timeout") == "200ms"
            assert await raw.fetchval("SHOW jit") == "off"
    finally:
        await pool.close()
        await engine.dispose()


async def _held_append_writes_nothing(
    store: SqlEventStore, locked: Callable[[], AbstractAsyncContextManager[None]]
) -> None:
    await store.append("other", 0, [event()])  # opens the pools before the lock
    async with locked():
        with pytest.raises(Exception) as failed:
            await store.append("s", 0, [event()])
    assert is_unavailable(failed.value), repr(failed.value)
    assert await store.load("s") == []
    await store.append("s", 0, [event()])  # the lock gone, the same append goes in
    assert [e.version for e in await store.load("s")] == [1]


@pytest.mark.postgres
async def test_an_append_behind_a_locked_table_fails_and_never_lands(postgres_url: str) -> None:
    store = await SqlEventStore.from_url(postgres_url, statement_timeout=TIMEOUT)
    try:
        await _held_append_writes_nothing(store, lambda: TableLock(postgres_url))
    finally:
        await store.close()


async def test_an_append_behind_another_processes_write_fails_and_never_lands(
    tmp_path: Path,
) -> None:
    path = tmp_path / "baton.db"
    store = await SqlEventStore.from_url(f"sqlite+aiosqlite:///{path}", statement_timeout=TIMEOUT)
    try:
        await _held_append_writes_nothing(store, lambda: file_locked(path))
    finally:
        await store.close()


def _table(conn: Connection) -> None:
    conn.exec_driver_sql("CREATE TABLE waited (id INTEGER PRIMARY KEY)")


@pytest.mark.postgres
async def test_a_migration_waits_for_another_past_the_bound(postgres_url: str) -> None:
    engine = create_engine(postgres_url, statement_timeout=TIMEOUT)
    other = await asyncpg.connect(_dsn(postgres_url))
    try:
        await other.execute("SELECT pg_advisory_lock($1)", _LOCK_KEY)  # another's migration
        # Held for several times the bound, then let go: the migration waits it out.
        release = asyncio.get_running_loop().call_later(
            5 * TIMEOUT, lambda: asyncio.ensure_future(other.close())
        )
        assert await migrate(engine, "waited", [_table]) == 1
        release.cancel()
        async with engine.connect() as conn:  # the bound is back for everything else
            assert (await conn.exec_driver_sql("SHOW statement_timeout")).scalar() == "200ms"
    finally:
        await other.close()
        await engine.dispose()


async def test_a_sqlite_migration_waits_for_another_process_past_the_bound(
    tmp_path: Path,
) -> None:
    path = tmp_path / "baton.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}", statement_timeout=TIMEOUT)
    async with engine.connect() as conn:  # the file in WAL mode before another writes it
        await conn.exec_driver_sql("SELECT 1")
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        release = asyncio.get_running_loop().call_later(5 * TIMEOUT, other.rollback)
        assert await migrate(engine, "waited", [_table]) == 1
        release.cancel()
        async with engine.connect() as conn:  # the bound is back for everything else
            assert (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 200
    finally:
        other.close()
        await engine.dispose()
