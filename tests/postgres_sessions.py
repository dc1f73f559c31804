"""Ending a test database's sessions, as a PostgreSQL restart or an operator would."""

from __future__ import annotations

import asyncio

import asyncpg


async def kill_other_sessions(postgres_url: str) -> None:
    """End every other session of the test's database, and wait until they are gone."""
    dsn = postgres_url.replace("postgresql+asyncpg://", "postgresql://", 1)
    others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    admin = await asyncpg.connect(dsn)
    try:
        assert await admin.fetchval(f"SELECT count(pg_terminate_backend(pid)) {others}") >= 1
        for _ in range(500):
            if not await admin.fetchval(f"SELECT count(*) {others}"):
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the killed sessions are still there after 5 s")
    finally:
        await admin.close()
