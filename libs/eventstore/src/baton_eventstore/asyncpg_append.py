"""`AsyncpgAppender`: stand-alone PostgreSQL appends on a raw asyncpg pool, one statement each.

The outbox relay's fetch and delete run on the same pool (`fetch`): they are on every
event's path too.

`SqlEventStore.append` outside a unit of work is the hot path of an event-sourced service.
Through SQLAlchemy it costs a pool checkout, greenlet hops and BEGIN/COMMIT round trips; here
it is one prepared statement (cached per connection by asyncpg) in one implicit transaction,
on a pool of its own that is opened on first use and sized like the engine's pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.model import ConcurrencyConflict, DuplicateEventId, NewEvent
from baton_eventstore.pg_append import EVENT_ID_INDEX, HEAD_SQL, append_params, append_sql
from baton_eventstore.row_write import RowConflict, RowWrite
from baton_eventstore.unavailable import CONNECTION_LOST, StoreUnavailable

# URL query options SQLAlchemy's asyncpg dialect understands but asyncpg.connect does not.
_SQLALCHEMY_ONLY = ("prepared_statement_cache_size", "prepared_statement_name_func")
_DEFAULT_POOL_SIZE = 10


class AsyncpgAppender:
    """Appends for one PostgreSQL database (the engine's URL) on a lazily opened asyncpg pool."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.max_size = pool_limit(engine)
        self._connect_options = connect_options(engine)
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    @property
    def is_open(self) -> bool:
        """True while the pool exists (after the first append, until `close`)."""
        return self._pool is not None

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        now: datetime,
        row: RowWrite | None = None,
    ) -> list[int]:
        """Insert events, outbox rows and the read `row`; the events' positions. Raises
        ConcurrencyConflict, DuplicateEventId or RowConflict, having written nothing."""
        params = append_params(stream_id, expected_version, events, now, row)
        pool = self._pool if self._pool is not None else await self._open()
        async with self._connection(pool) as conn:
            try:
                rows = await conn.fetch(append_sql(row), *params)
            except asyncpg.UniqueViolationError as exc:
                if row is not None and exc.table_name == row.table.name:
                    raise RowConflict(row.table.name, str(exc)) from exc
                if exc.constraint_name == EVENT_ID_INDEX:
                    message = f"events: an event id is already stored ({exc})"
                    raise DuplicateEventId(message) from exc
                raise await _conflict(conn, stream_id, expected_version) from exc
            if not rows:  # the stream is behind expected_version: appending would leave a gap
                raise await _conflict(conn, stream_id, expected_version)
        return [row[0] for row in rows]

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """Run one more statement of the store's hot path (the relay's) on this pool."""
        pool = self._pool if self._pool is not None else await self._open()
        async with self._connection(pool) as conn:
            return list(await conn.fetch(sql, *args))

    @asynccontextmanager
    async def _connection(self, pool: asyncpg.Pool) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection; one that broke (or was cut off mid-statement) is closed, not
        given back, and a broken one is reported as `StoreUnavailable`."""
        try:
            conn = await pool.acquire()
        except CONNECTION_LOST as exc:
            raise StoreUnavailable(f"PostgreSQL: {exc.__class__.__name__}: {exc}") from exc
        try:
            yield conn
        except CONNECTION_LOST as exc:
            conn.terminate()
            raise StoreUnavailable(f"PostgreSQL: {exc.__class__.__name__}: {exc}") from exc
        except asyncio.CancelledError:
            conn.terminate()  # its statement's state is unknown
            raise
        finally:
            await pool.release(conn)

    async def close(self) -> None:
        """Close the pool's connections; a later append opens a new pool."""
        pool, self._pool = self._pool, None
        self._opening = asyncio.Lock()  # a later append may run on another event loop
        if pool is not None:
            await pool.close()

    async def _open(self) -> asyncpg.Pool:
        async with self._opening:  # fifty first appends at once must open one pool, not fifty
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    min_size=0,
                    max_size=self.max_size,
                    reset=_keep_session,
                    **self._connect_options,
                )
            return self._pool


async def _keep_session(_conn: asyncpg.Connection) -> None:
    # asyncpg's default reset on release (RESET ALL, UNLISTEN, ...) is one more round trip per
    # append. These connections only run the append and head statements, which leave no
    # session state; an open transaction is still rolled back by the pool before this runs.
    return None


async def _conflict(
    conn: asyncpg.Connection, stream_id: str, expected_version: int
) -> ConcurrencyConflict:
    # Autocommit: the failed statement left no aborted transaction, so ask on this connection.
    actual = await conn.fetchval(HEAD_SQL, stream_id)
    return ConcurrencyConflict(stream_id, expected_version, int(actual))


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
