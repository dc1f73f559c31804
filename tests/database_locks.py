"""Locks another session holds on a test database, as an operator's maintenance, a migration
gone wrong or another process would: what a store's bounded statements are tested against."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg


class TableLock:
    """`LOCK TABLE events` in a session of its own, held from `take()` until `release()`, or
    for the block of an `async with`."""

    def __init__(self, postgres_url: str) -> None:
        self.dsn = postgres_url.replace("postgresql+asyncpg://", "postgresql://", 1)
        self.conn: asyncpg.Connection | None = None

    async def take(self) -> None:
        self.conn = await asyncpg.connect(self.dsn)
        await self.conn.execute("BEGIN")
        await self.conn.execute("LOCK TABLE events")

    async def release(self) -> None:
        if self.conn is not None:
            await self.conn.execute("ROLLBACK")
            await self.conn.close()
            self.conn = None

    async def __aenter__(self) -> None:
        await self.take()

    async def __aexit__(self, *exc: object) -> None:
        await self.release()


@asynccontextmanager
async def file_locked(path: Path) -> AsyncIterator[None]:
    """Another process's write transaction on the SQLite file while the block runs."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
    finally:
        other.rollback()
        other.close()
