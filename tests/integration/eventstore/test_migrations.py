"""Migrations of several components into one fresh database, at the same moment (the README's
`baton up --database-url .../baton` gives every service the same database)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Connection

from baton_eventstore import create_engine, migrate, schema_version


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
