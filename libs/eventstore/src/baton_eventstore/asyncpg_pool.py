"""`LazyPool`: the raw asyncpg pool of the event store's hot path, opened on first use.

It is configured from the SQLAlchemy engine (the same URL, the same session settings, its
statement timeout among them, the client's own bounds, and at most as many connections as the
engine's pool may open) and keeps every session's plans on the indexes (`KEY_LOOKUPS_ONLY`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.closing import GOODBYE_SECONDS, close_pool
from baton_eventstore.engine import NO_ANSWER, connection_bounds, session_settings
from baton_eventstore.unavailable import (
    CONNECTION_LOST,
    CONNECTION_LOST_SAYS,
    NoAnswer,
    StoreUnavailable,
    server_closed,
)

# URL query options SQLAlchemy's asyncpg dialect understands but asyncpg.connect does not.
_SQLALCHEMY_ONLY = ("prepared_statement_cache_size", "prepared_statement_name_func")
_DEFAULT_POOL_SIZE = 10
KEY_LOOKUPS_ONLY = {"enable_seqscan": "off", "enable_hashjoin": "off", "enable_mergejoin": "off"}
"""Session settings of the append pool. Its statements (appends, heads, the relay's fetch and
delete, leases) only ever need a few rows by key. On a young database, before autovacuum has
analysed the growing tables, the planner believes them tiny and plans scans and hash joins
whose cost then grows with every event; these settings keep every plan on the indexes."""


class LazyPool:
    """An asyncpg pool for the engine's database, opened by the first `connection()`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.max_size = pool_limit(engine)
        options = connect_options(engine)
        self._server_settings: dict[str, str] = {
            **session_settings(engine),
            **(options.pop("server_settings", None) or {}),
        }
        self._connect_options = {**connection_bounds(engine), **options}
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    @property
    def is_open(self) -> bool:
        """True while the pool exists (after the first connection, until `close`)."""
        return self._pool is not None

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection; one that broke (or was cut off mid-statement) is closed, not
        given back, and a broken one is reported as `StoreUnavailable` (raised from asyncpg's
        error: `lost_before_sent` of its cause tells whether the work may run again).

        One the server closed (a restart, a failover, `pg_terminate_backend`) also expires
        every other connection the pool holds, replaced at their next acquire: the server
        ended them too, and asyncpg may not have read it yet."""
        pool = self._pool if self._pool is not None else await self._open()
        try:
            conn = await pool.acquire()
        except CONNECTION_LOST as exc:
            raise _unavailable(exc) from exc
        try:
            yield conn
        except CONNECTION_LOST as exc:
            _terminate(conn)
            said = ""
            if server_closed(exc):
                said = f"{CONNECTION_LOST_SAYS}: "
                await pool.expire_connections()
            raise _unavailable(exc, said) from exc
        except asyncio.CancelledError:
            _terminate(conn)  # its statement's state is unknown
            raise
        finally:
            await pool.release(conn)

    async def close(self, within: float = GOODBYE_SECONDS) -> bool:
        """Close the pool's connections in `within` seconds (`close_pool`: False when the
        server did not answer in time, and they were dropped); a later `connection()` opens a
        new pool."""
        pool, self._pool = self._pool, None
        self._opening = asyncio.Lock()  # a later connection may be on another event loop
        return pool is None or await close_pool(pool, within)

    async def _open(self) -> asyncpg.Pool:
        async with self._opening:  # fifty first appends at once must open one pool, not fifty
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    min_size=0,
                    max_size=self.max_size,
                    reset=_keep_session,
                    **self._connect_options,
                    server_settings={**self._server_settings, **KEY_LOOKUPS_ONLY},
                )
            return self._pool


def _unavailable(exc: BaseException, said: str = "") -> StoreUnavailable:
    """The `StoreUnavailable` to raise from `exc`; asyncpg's `TimeoutError` (its
    `command_timeout`, the client's own bound: `CLIENT_MARGIN_SECONDS`) says nothing, and is
    `NoAnswer`."""
    if isinstance(exc, TimeoutError):
        return NoAnswer(NO_ANSWER)
    return StoreUnavailable(f"PostgreSQL: {said}{exc.__class__.__name__}: {exc}")


def _terminate(conn: asyncpg.Connection) -> None:
    """Close a connection whose state is unknown. One the server ended has already been
    handed back to the pool by asyncpg (its proxy refuses every call with `InterfaceError:
    ... released back to the pool`), which would hide the outage being reported."""
    with suppress(asyncpg.InterfaceError):
        conn.terminate()


async def _keep_session(_conn: asyncpg.Connection) -> None:
    # asyncpg's default reset on release (RESET ALL, UNLISTEN, ...) is one more round trip per
    # append. These connections only run the append and head statements, which leave no
    # session state; an open transaction is still rolled back by the pool before this runs.
    return None


def pool_limit(engine: AsyncEngine) -> int:
    """The engine pool's connection limit (size + overflow), the most this pool may open."""
    pool = engine.sync_engine.pool
    size = pool.size() if hasattr(pool, "size") else _DEFAULT_POOL_SIZE
    overflow = getattr(pool, "_max_overflow", 0)
    return max(size + (overflow if overflow > 0 else 0), 1)


def connect_options(engine: AsyncEngine) -> dict[str, Any]:
    """asyncpg.connect keyword arguments for the engine's URL (host, port, user, database...)."""
    _args, options = engine.dialect.create_connect_args(engine.url)
    return {k: v for k, v in options.items() if k not in _SQLALCHEMY_ONLY}
