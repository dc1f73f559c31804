"""Single statements straight on a pooled asyncpg connection, for the per-call hot paths.

On PostgreSQL a one-row read or write through SQLAlchemy Core costs about twice the CPU of the
same statement on the asyncpg connection underneath (measured: 0.7 ms against 0.3 ms), and
every DAG step and turn runs several. The connection still comes from, and goes back to, the
engine's pool; SQLite keeps the SQLAlchemy statements.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import greenlet_spawn

from baton_agent_runner.service.ports import StoreUnavailable
from baton_eventstore.engine import CLIENT_MARGIN_SECONDS
from baton_eventstore.unavailable import (
    CONNECTION_LOST,
    CONNECTION_LOST_SAYS,
    lost_before_sent,
    server_closed,
)

logger = logging.getLogger("baton.agent_runner")


def is_postgres(engine: AsyncEngine) -> bool:
    """True when the engine talks to PostgreSQL through asyncpg."""
    return engine.dialect.name == "postgresql"


async def fetchval(
    engine: AsyncEngine, store: str, query: str, *args: Any, repeatable: bool = False
) -> Any:
    """The first column of the first row of `query` (None without a row), one round trip.

    `repeatable`: `query` may run twice with the same outcome (a read, a write idempotent by
    design); see `_on_pooled` for when a statement runs again on a new connection."""
    statement = lambda driver: driver.fetchval(query, *args)  # noqa: E731
    return await _on_pooled(engine, store, statement, repeatable)


async def fetchval_within(
    engine: AsyncEngine, store: str, seconds: float, query: str, *args: Any
) -> Any:
    """`fetchval`, in a transaction of its own whose statement timeout is `seconds` in place
    of the engine's (`BATON_STORE_TIMEOUT_SECONDS`, set for every session): for work that
    may rightly take longer than a turn's reads and writes, a prune's batch."""

    async def bounded(driver: Any) -> Any:
        async with driver.transaction():
            await driver.execute(f"SET LOCAL statement_timeout = {max(round(seconds * 1000), 1)}")
            # The client's own bound follows (asyncpg's `command_timeout` is the engine's).
            return await driver.fetchval(query, *args, timeout=seconds + CLIENT_MARGIN_SECONDS)

    return await _on_pooled(engine, store, bounded)


async def fetchrow(
    engine: AsyncEngine, store: str, query: str, *args: Any, repeatable: bool = False
) -> Any:
    """The first row of `query` (an asyncpg `Record`; None without a row), one round trip;
    `repeatable` as for `fetchval`."""
    statement = lambda driver: driver.fetchrow(query, *args)  # noqa: E731
    return await _on_pooled(engine, store, statement, repeatable)


async def fetch(
    engine: AsyncEngine, store: str, query: str, *args: Any, repeatable: bool = False
) -> list[Any]:
    """The rows of `query` (asyncpg `Record`s), one round trip; `repeatable` as for
    `fetchval`."""
    statement = lambda driver: driver.fetch(query, *args)  # noqa: E731
    return list(await _on_pooled(engine, store, statement, repeatable))


@asynccontextmanager
async def advisory_lock(engine: AsyncEngine, store: str, lock_id: int) -> AsyncIterator[None]:
    """Hold the advisory lock `lock_id` while the block runs, on a pooled connection of its
    own: whoever else asks for the same id, in any process on the database, waits until the
    block has ended (or the connection is gone, which lets the lock go too)."""
    pooled = await engine.raw_connection()
    driver: Any = pooled.driver_connection
    try:
        await driver.execute("SELECT pg_advisory_lock($1)", lock_id)
        try:
            yield
        finally:
            # Shielded: a block that was cancelled must still let the lock go.
            await asyncio.shield(driver.execute("SELECT pg_advisory_unlock($1)", lock_id))
    except BaseException as exc:
        if isinstance(exc, (*CONNECTION_LOST, asyncio.CancelledError)):
            # Cut off mid-statement (a deadline) or gone: the connection's state, and whether
            # it still holds the lock, are unknown; dropped, it holds nothing.
            await asyncio.shield(greenlet_spawn(pooled.invalidate))
        if isinstance(exc, CONNECTION_LOST):
            raise StoreUnavailable(f"{store}: {exc.__class__.__name__}: {exc}", store) from exc
        raise
    finally:
        await greenlet_spawn(pooled.close)  # back to the pool


async def _on_pooled(
    engine: AsyncEngine,
    store: str,
    statement: Callable[[Any], Awaitable[Any]],
    repeatable: bool = False,
) -> Any:
    """`statement` on a pooled connection; on a new one, once, if the server had closed the
    first and running it again is safe.

    A PostgreSQL restart or failover ends every pooled session, and a statement that comes
    before asyncpg has read that end fails on it (`lost_before_sent`, `server_closed`):
    each pooled connection failed one caller with `unavailable` (a 503) although the
    database was back. The statement runs again on a new connection when it was never sent
    (a write included: the server never saw it), or when the caller says it is
    `repeatable`; a write that may have run, and committed, is not repeated. This costs no
    round trip when nothing failed: nothing is checked before the statement."""
    try:
        return await _once(engine, store, statement)
    except CONNECTION_LOST as exc:
        if not (lost_before_sent(exc) or (repeatable and server_closed(exc))):
            raise _unavailable(store, exc) from exc
        logger.warning(
            "%s: %s; retried on a new connection (%s: %s)",
            store,
            CONNECTION_LOST_SAYS,
            exc.__class__.__name__,
            exc,
        )
    try:
        return await _once(engine, store, statement)
    except CONNECTION_LOST as exc:
        raise _unavailable(store, exc) from exc


def _unavailable(store: str, exc: BaseException) -> StoreUnavailable:
    said = f"{CONNECTION_LOST_SAYS}: " if server_closed(exc) else ""
    return StoreUnavailable(f"{store}: {said}{exc.__class__.__name__}: {exc}", store)


async def _once(engine: AsyncEngine, store: str, statement: Callable[[Any], Awaitable[Any]]) -> Any:
    # The pooled connection itself, without a SQLAlchemy `Connection` around it, whose set-up
    # and tear-down (isolation level, events) cost more CPU than the statement (measured per
    # `SELECT 1`: 0.16 ms through a `Connection`, 0.11 ms so, 0.02 ms of it asyncpg's).
    # asyncpg, used directly, commits each statement on its own.
    pooled = await engine.raw_connection()
    try:
        return await statement(pooled.driver_connection)
    except CONNECTION_LOST as exc:  # nothing wraps these here: drop the connection
        if server_closed(exc):
            # As SQLAlchemy does on a disconnect of its own: every connection the pool opened
            # before now is replaced at its next checkout, since a restart ended them all and
            # asyncpg may not have read that yet (the retry would meet another of them).
            await greenlet_spawn(engine.sync_engine.pool._invalidate, pooled, exc)
        else:
            await greenlet_spawn(pooled.invalidate)
        raise
    except asyncio.CancelledError:
        # Cut off mid-statement (a deadline): the connection's state is unknown, drop it.
        await asyncio.shield(greenlet_spawn(pooled.invalidate))
        raise
    finally:
        await greenlet_spawn(pooled.close)  # back to the pool
