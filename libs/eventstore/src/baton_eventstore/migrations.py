"""Versioned schema migrations: `baton_schema(component, version)` and ordered steps."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

from sqlalchemy import Column, Connection, Integer, MetaData, String, Table, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from baton_eventstore.engine import without_statement_timeout

# A step gets a sync Connection inside the migration transaction (so `metadata.create_all`
# works as is); step N (1-based) brings the component to version N. Never reorder or edit one.
Step = Callable[[Connection], None]

_meta = MetaData()
baton_schema = Table(
    "baton_schema",
    _meta,
    Column("component", String(100), primary_key=True),
    Column("version", Integer, nullable=False),
)


class SchemaTooNew(RuntimeError):
    """The database was migrated by a later release: this code must not write to it."""

    def __init__(self, component: str, version: int, known: int) -> None:
        steps = "step" if known == 1 else "steps"
        super().__init__(
            f"the schema of {component!r} is at version {version}, newer than this code "
            f"({known} {steps}); run a release that knows it"
        )


async def migrate(engine: AsyncEngine, component: str, steps: Sequence[Step]) -> int:
    """Apply the steps `component` has not run yet, in one transaction; return its version."""
    if not component:
        raise ValueError("component: must be a non-empty string")
    # Unbounded by the engine's statement timeout: a migration waits for another replica's
    # (the lock below), and a step may build an index on a large table.
    async with engine.connect() as conn, without_statement_timeout(conn):
        await _lock(conn)
        await conn.run_sync(lambda sync: _meta.create_all(sync, tables=[baton_schema]))
        current = await _current_version(conn, component)
        if current > len(steps):
            raise SchemaTooNew(component, current, len(steps))
        for number, step in enumerate(steps[current:], start=current + 1):
            await conn.run_sync(step)
            await _record(conn, component, number)
        await conn.commit()
        return len(steps)


async def schema_version(engine: AsyncEngine, component: str) -> int:
    """The recorded version of `component` (0 when it was never migrated)."""
    async with engine.connect() as conn:
        await conn.run_sync(lambda sync: _meta.create_all(sync, tables=[baton_schema]))
        version = await _current_version(conn, component)
        await conn.commit()
        return version


_LOCK_KEY = zlib.crc32(b"baton_schema")


async def _lock(conn: AsyncConnection) -> None:
    """Serialise every migrator of one database, whatever its component, until this
    transaction ends: components share `baton_schema`, and two transactions creating it at
    once on PostgreSQL make one fail on a duplicate key of the catalogue."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    elif conn.dialect.name == "sqlite":
        # pysqlite only begins a transaction before DML; take the write lock up front instead.
        await conn.exec_driver_sql("BEGIN IMMEDIATE")


async def _current_version(conn: AsyncConnection, component: str) -> int:
    query = select(baton_schema.c.version).where(baton_schema.c.component == component)
    return int((await conn.execute(query)).scalar() or 0)


async def _record(conn: AsyncConnection, component: str, version: int) -> None:
    if version == 1:
        await conn.execute(baton_schema.insert().values(component=component, version=1))
    else:
        await conn.execute(
            baton_schema.update()
            .where(baton_schema.c.component == component)
            .values(version=version)
        )
