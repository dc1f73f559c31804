"""`database_answers`: healthy means the service can write, and a busy SQLite write lock
is no outage.

SQLite opens a file it may not write (a read-only disk or folder) read-only without a word;
`SELECT 1` passed on such a connection, and so does `BEGIN IMMEDIATE` (checked against that
fallback as an unprivileged user), so a service reported healthy while every write failed.
`mode=ro` opens the same kind of connection on purpose."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text

from baton_eventstore import create_engine
from baton_eventstore.engine import database_answers, write_lock, write_transaction

from ...database_locks import file_locked


async def made(path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (x INTEGER)"))
    await engine.dispose()


async def test_a_database_opened_read_only_is_not_healthy(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    await made(path)
    engine = create_engine(f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true")
    try:
        assert not await database_answers(engine)
    finally:
        await engine.dispose()


async def test_a_writable_database_is_healthy_and_keeps_its_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    await made(path)
    engine = create_engine(f"sqlite+aiosqlite:///{path}", statement_timeout=2.5)
    try:
        assert await database_answers(engine)
        async with write_transaction(engine) as conn:  # the probe's pooled connection
            assert (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 2500
            await conn.execute(text("INSERT INTO t VALUES (1)"))
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT x FROM t"))).scalars().all() == [1]
    finally:
        await engine.dispose()


async def test_a_write_lock_held_by_another_process_is_healthy_at_once(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    await made(path)
    engine = create_engine(f"sqlite+aiosqlite:///{path}")  # a 30 s busy timeout
    try:
        async with file_locked(path):
            assert await database_answers(engine, within=1.0)
    finally:
        await engine.dispose()


async def test_a_write_of_this_process_is_not_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    await made(path)
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with write_lock(engine):
            assert await asyncio.wait_for(database_answers(engine), 5)
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_a_postgresql_database_that_takes_no_writes_is_not_healthy(postgres_url: str) -> None:
    # As a hot standby, or the old primary after a failover, answers: SELECT 1 passed.
    engine = create_engine(postgres_url)
    try:
        assert await database_answers(engine)
        name = postgres_url.rsplit("/", 1)[1]
        async with engine.connect() as conn:
            await conn.execute(
                text(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
            )
            await conn.commit()
        await engine.dispose()  # new sessions take the setting
        assert not await database_answers(engine)
    finally:
        await engine.dispose()
