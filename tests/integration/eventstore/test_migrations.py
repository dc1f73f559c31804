"""Migrations of several components into one fresh database, at the same moment (the README's
`baton up --database-url .../baton` gives every service the same database)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Connection

from baton_eventstore import create_engine, migrate, schema_version
from baton_eventstore.unusable import DatabaseUnusable, first_use


def _table(name: str) -> list[object]:
    def step(conn: Connection) -> None:
        conn.exec_driver_sql(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY)")

    return [step]


async def _migrate_together(url: str) -> None:
    names = [f"component_{n}" for n in range(6)]
    engines = [create_engine(url) for _ in names]
    try:
        results = await asyncio.gather(
            *(migrate(e, name, _table(name)) for e, name in zip(engines, names, strict=True))
        )
        assert results == [1] * len(names)
        assert [await schema_version(engines[0], name) for name in names] == [1] * len(names)
    finally:
        for engine in engines:
            await engine.dispose()


@pytest.mark.postgres
async def test_components_migrating_a_fresh_postgres_database_together_all_succeed(
    postgres_url: str,
) -> None:
    await _migrate_together(postgres_url)


async def test_components_migrating_a_fresh_sqlite_database_together_all_succeed(
    sqlite_url: str,
) -> None:
    await _migrate_together(sqlite_url)


async def test_a_schema_newer_than_the_code_is_refused_naming_the_setting(
    sqlite_url: str,
) -> None:
    engine = create_engine(sqlite_url)
    try:
        # A later release migrated it to version 2.
        await migrate(engine, "newer", [*_table("newer_1"), *_table("newer_2")])

        async def first_start() -> None:
            await migrate(engine, "newer", _table("newer_1"))

        with pytest.raises(DatabaseUnusable) as refused:
            await first_use("BATON_DATABASE_URL", sqlite_url, first_start, logging.getLogger("t"))
    finally:
        await engine.dispose()
    assert str(refused.value) == (
        f"BATON_DATABASE_URL: cannot use {sqlite_url}: the schema of 'newer' is at version 2, "
        "newer than this code (1 step); run a release that knows it"
    )


async def test_an_engine_opened_while_a_fresh_database_is_being_written_waits_for_it(
    tmp_path: Path,
) -> None:
    # A fresh file is in rollback-journal mode until a first connection switches it to WAL;
    # switching takes the write lock, and SQLite answers "database is locked" at once, busy
    # timeout or not, while another connection holds it (seen: six components migrating one
    # fresh database together, on a busy machine, one failed to connect).
    path = tmp_path / "baton.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("CREATE TABLE first (id INTEGER PRIMARY KEY)")
    release = asyncio.get_running_loop().call_later(0.3, writer.execute, "COMMIT")
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    try:
        assert await migrate(engine, "late", _table("late")) == 1
        async with engine.connect() as conn:
            mode = (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar()
        assert mode == "wal"
    finally:
        release.cancel()
        await engine.dispose()
        writer.close()
