"""Ending a test database's sessions, as a PostgreSQL restart or an operator would."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import asyncpg
import pytest


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


def stick_protocol(monkeypatch: pytest.MonkeyPatch, method: str) -> list[asyncpg.Connection]:
    """Make `asyncpg.Connection.<method>` fail as on a connection whose session the server
    ended while it sat idle in a pool (asyncpg's protocol stays in its error-consuming state);
    the connections it was called on are listed in the returned list."""
    stuck: list[asyncpg.Connection] = []

    async def in_error_consume(self: asyncpg.Connection, *_: object, **__: object) -> None:
        stuck.append(self)
        raise asyncpg.InternalClientError(
            "cannot switch to state 11; another operation (2) is in progress"
        )

    monkeypatch.setattr(asyncpg.Connection, method, in_error_consume)
    return stuck


async def end_backends(admin: asyncpg.Connection, pids: list[int]) -> None:
    """End these sessions as a restart ends them, without waiting for their clients to notice
    (`kill_other_sessions` waits: its pool's next statement finds them gone at once)."""
    await admin.execute("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid", pids)


def fail_first(
    monkeypatch: pytest.MonkeyPatch, method: str, error: Exception, marker: str = ""
) -> list[str]:
    """`asyncpg.Connection.<method>` fails with `error` on its first call (its first with a
    statement that holds `marker`, when given), then runs; the statements it was called
    with are listed in the returned list (cleared, the next such call fails again)."""
    calls: list[str] = []
    real = getattr(asyncpg.Connection, method)

    async def failing_once(self: asyncpg.Connection, query: str, *args: object) -> object:
        calls.append(query)
        if marker in query and not any(marker in earlier for earlier in calls[:-1]):
            raise error
        return await real(self, query, *args)

    monkeypatch.setattr(asyncpg.Connection, method, failing_once)
    return calls


def cut_after(
    monkeypatch: pytest.MonkeyPatch,
    method: str,
    marker: str,
    error: Exception,
    meanwhile: Callable[[], Awaitable[object]] | None = None,
) -> list[str]:
    """`asyncpg.Connection.<method>` runs the first statement that holds `marker`, then fails
    with `error`: the server did the statement (committed it, if it commits) and the
    connection was lost before its answer came. `meanwhile` (when given) runs in between, as
    what happened elsewhere before the client saw the loss. The statements it was called
    with are listed in the returned list."""
    calls: list[str] = []
    real = getattr(asyncpg.Connection, method)
    cut: list[str] = []

    async def cut_once(self: asyncpg.Connection, query: str, *args: object) -> object:
        calls.append(query)
        result = await real(self, query, *args)
        if marker in query and not cut:
            cut.append(query)
            if meanwhile is not None:
                await meanwhile()
            raise error
        return result

    monkeypatch.setattr(asyncpg.Connection, method, cut_once)
    return calls


class PoolConnects:
    """Every new connection of an asyncpg pool (as the store's append pool opens them) is
    counted in `tries`, and fails with the first of `refusals` while any is left, each used
    once: the server refusing connections, shutting down or starting up. Append to
    `refusals` when the outage begins."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.refusals: list[Exception] = []
        self.tries = 0
        real = asyncpg.pool.Pool._get_new_connection

        async def connect(pool: asyncpg.Pool) -> asyncpg.Connection:
            self.tries += 1
            if self.refusals:
                raise self.refusals.pop(0)
            return await real(pool)

        monkeypatch.setattr(asyncpg.pool.Pool, "_get_new_connection", connect)
