"""A fresh PostgreSQL database per case, or Skip when the server is unreachable."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from bench.registry import Skip

DEFAULT_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


def asyncpg_dsn(url: str) -> str:
    """A SQLAlchemy URL as a plain libpq DSN."""
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


@asynccontextmanager
async def fresh_database(url: str) -> AsyncIterator[str]:
    """Create an empty database next to `url`'s, yield its SQLAlchemy URL, drop it after."""
    name = f"baton_bench_{uuid.uuid4().hex[:10]}"
    try:
        admin = await asyncpg.connect(asyncpg_dsn(url), timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        raise Skip(f"PostgreSQL unreachable at {url} ({exc.__class__.__name__}: {exc})") from exc
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base = url.rpartition("/")[0]
    try:
        yield f"{base}/{name}"
    finally:
        admin = await asyncpg.connect(asyncpg_dsn(url))
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
