"""`AsyncpgAppender`: stand-alone PostgreSQL appends on a raw asyncpg pool, with group commit.

The outbox relay's fetch and delete run on the same pool (`fetch`): they are on every
event's path too.

`SqlEventStore.append` outside a unit of work is the hot path of an event-sourced service.
Through SQLAlchemy it costs a pool checkout, greenlet hops and BEGIN/COMMIT round trips; here
it is one prepared statement (cached per connection by asyncpg) in one implicit transaction,
on a pool of its own that is opened on first use and sized like the engine's pool.

Group commit: at most `writers` statements are in flight at once. An append that finds a
writer free goes at once, alone; appends that arrive while every writer waits on the
database are written together by the next free writer, in one statement (`pg_batch`), at
most one per stream and `max_batch` in all. Under load this turns many small commits into a
few larger ones, which costs PostgreSQL and this process a fraction of the CPU per event;
alone, an append waits for nothing. Each append still gets exactly its own outcome.

An append given a `start_by` that comes while it waits (every writer's statement held up by a
lock, say) is dropped before its statement is sent, and fails `StartByPassed`: its caller
answered by then that nothing was recorded, and a write sent later would make that untrue. A
statement already sent is never cut: cut off, it might still commit.

An append whose connection the server closed after its statement was sent (a restart, a
failover) may or may not have committed: it is looked up on a new connection, and answered
as committed or written once more (`asyncpg_recovery`).

Every committed append goes to `committed` (when given) with its outbox rows' ids, which the
statements return, so the store's relay can publish them without reading them back.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.asyncpg_pool import LazyPool
from baton_eventstore.asyncpg_recovery import recover, recover_batch
from baton_eventstore.asyncpg_waiting import Waiting, gone, settle, still_due, take
from baton_eventstore.closing import GOODBYE_SECONDS
from baton_eventstore.committed import CommittedLog
from baton_eventstore.model import ConcurrencyConflict, DuplicateEventId, NewEvent, refuse_if_late
from baton_eventstore.pg_append import EVENT_ID_INDEX, HEAD_SQL, append_params, append_sql
from baton_eventstore.pg_batch import Append, batch_statement
from baton_eventstore.row_write import RowConflict, RowWrite
from baton_eventstore.unavailable import (
    CONNECTION_LOST_SAYS,
    StoreUnavailable,
    lost_before_sent,
    server_closed,
)

log = logging.getLogger(__name__)

DEFAULT_WRITERS = 4
"""Append statements in flight at once; more appends than this wait and go together."""
DEFAULT_MAX_BATCH = 256


class AsyncpgAppender:
    """Appends for one PostgreSQL database (the engine's URL) on a lazily opened asyncpg pool."""

    def __init__(
        self,
        engine: AsyncEngine,
        writers: int = DEFAULT_WRITERS,
        max_batch: int = DEFAULT_MAX_BATCH,
        committed: CommittedLog | None = None,
    ) -> None:
        if writers < 1:
            raise ValueError(f"writers: must be >= 1, got {writers}")
        if max_batch < 1:
            raise ValueError(f"max_batch: must be >= 1, got {max_batch}")
        self._pool = LazyPool(engine)
        self.max_size = self._pool.max_size
        self.writers = min(writers, self.max_size)
        self.max_batch = max_batch
        self.committed = committed
        self._queue: deque[Waiting] = deque()
        self._running: set[asyncio.Task[None]] = set()
        self._writing = 0
        self._in_flight: set[str] = set()
        self.batches = 0
        """Statements that wrote more than one append (for tests and benchmarks)."""

    @property
    def is_open(self) -> bool:
        """True while the pool exists (after the first append, until `close`)."""
        return self._pool.is_open

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        now: datetime,
        row: RowWrite | None = None,
        start_by: datetime | None = None,
        before: Callable[[asyncpg.Connection], Awaitable[None]] | None = None,
    ) -> list[int]:
        """Insert events, outbox rows and the read `row`; the events' positions. Raises
        ConcurrencyConflict, DuplicateEventId or RowConflict, having written nothing, and
        StartByPassed, having sent nothing, when `start_by` (aware) came before a writer could
        send the statement. An append cut off by a lost connection is looked up and answered
        as committed, or written once more (`recover`); StoreUnavailable when that cannot be
        told.

        `before`, when given, runs on the connection in a transaction the append then joins
        (`_append_after`).

        Cancelling the caller while its statement is in flight does not stop the statement
        (other appends may share it): as with any cut-off write, it may or may not commit.
        """
        if before is not None:
            append = Append(stream_id, expected_version, events, now, row, start_by)
            return await self._append_after(before, append)
        waiting = Waiting(
            Append(stream_id, expected_version, events, now, row, start_by),
            asyncio.get_running_loop().create_future(),
        )
        self._queue.append(waiting)
        if self._writing < self.writers:
            # Counted now, not when the task ends: a writer that has just seen an empty
            # queue must not be taken for one that will write this append.
            self._writing += 1
            task = asyncio.create_task(self._write_queued())
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return await waiting.outcome

    async def _write_queued(self) -> None:
        """One writer: take what waits and write it, until nothing is left for it."""
        try:
            while batch := take(self._queue, self._in_flight, self.max_batch):
                await self._write(batch)
        finally:
            # With no await since the last look at the queue: what waits now has a writer
            # (one still in flight takes it after its own batch) or gets a new one.
            self._writing -= 1

    async def _write(self, batch: list[Waiting]) -> None:
        streams = [waiting.append.stream_id for waiting in batch]
        self._in_flight.update(streams)
        try:
            try:
                await self._write_on_a_connection(batch)
            except StoreUnavailable as exc:
                if not lost_before_sent(exc.__cause__ or exc):
                    await recover_batch(self.fetch, batch, exc, self._alone)
                    return
                # The server had closed the connection (a restart ended every pooled one)
                # and the statement was never sent: the appends not yet settled go again,
                # on a new connection (the pool expired the old ones).
                log.warning("%s; retried on a new connection (%s)", CONNECTION_LOST_SAYS, exc)
                try:
                    await self._write_on_a_connection(batch)
                except StoreUnavailable as again:
                    await recover_batch(self.fetch, batch, again, self._alone)
        except Exception as exc:  # the connection broke (or a bug): the batch's appends failed
            for waiting in batch:
                waiting.fail(exc)
        except BaseException:  # this writer was stopped: nothing it holds will be written
            stopped = StoreUnavailable("PostgreSQL: the append was cut off (writer stopped)")
            for waiting in [*batch, *self._queue]:
                waiting.fail(stopped)
            self._queue.clear()
            raise
        finally:
            self._in_flight.difference_update(streams)

    async def _write_on_a_connection(self, batch: list[Waiting]) -> None:
        async with self._pool.connection() as conn:
            # Looked at once the connection is there, just before the statement: every
            # wait (for a writer, for a pooled connection) is behind it. Settled appends
            # (written alone before the connection broke) are not sent again.
            batch = still_due([waiting for waiting in batch if not waiting.outcome.done()])
            if not batch:
                return
            if len(batch) == 1:
                await settle(batch[0], self._write_one(conn, batch[0].append))
            else:
                await self._write_batch(conn, batch)

    async def _write_batch(self, conn: asyncpg.Connection, batch: list[Waiting]) -> None:
        try:
            # Built here, not per append: one append's read row JSON cannot encode (a TypeError)
            # must fail that append only, as the statement's own errors do.
            sql, params = batch_statement([waiting.append for waiting in batch])
            rows = await conn.fetch(sql, *params)
        except (asyncpg.PostgresError, ValueError, TypeError) as exc:
            if gone(exc):
                raise
            # Some append conflicts or is refused, and the statement wrote nothing: written
            # alone, each append gets its own outcome. Each is a statement sent anew, maybe a
            # lock's wait later (a unique key another transaction holds): its start-by again.
            for waiting in batch:
                if still_due([waiting]):
                    await settle(waiting, self._write_one(conn, waiting.append))
            return
        self.batches += 1
        written = {row[1]: (row[0], row[2]) for row in rows}
        for waiting in batch:
            append = waiting.append
            if append.events[0].event_id in written:
                found = [written[event.event_id] for event in append.events]
                self._committed(append, [outbox_id for _, outbox_id in found])
                waiting.succeed([position for position, _ in found])
            else:  # the guard refused it: the stream is behind its expected version
                waiting.fail(await _conflict(conn, append.stream_id, append.expected_version))

    async def _append_after(
        self, before: Callable[[asyncpg.Connection], Awaitable[None]], append: Append
    ) -> list[int]:
        """`_append_after_once`; cut off by the server closing its connection, looked up and
        maybe written again (`recover`), `before` included."""
        try:
            return await self._append_after_once(before, append)
        except StoreUnavailable as exc:
            if not server_closed(exc.__cause__ or exc):
                raise
            again = partial(self._append_after_once, before, append)
            return await recover(self.fetch, append, exc, again)

    async def _append_after_once(
        self, before: Callable[[asyncpg.Connection], Awaitable[None]], append: Append
    ) -> list[int]:
        """The append in a transaction of its own, after `before` has run in it: for what one
        statement cannot do, such as take a lock and count under it (a statement reads what
        was committed when it began, not what the lock's last holder committed since).
        `before` refuses by raising, and nothing is written; `start_by` is looked at once it
        has run (it may have waited for a lock). Not batched with other appends; committed,
        it goes to the relay's log as theirs do."""
        async with self._pool.connection() as conn, conn.transaction():
            await before(conn)
            refuse_if_late(append.stream_id, append.start_by)
            rows = await self._statement(conn, append)
        self._committed(append, [row[1] for row in rows])
        return [row[0] for row in rows]

    async def _alone(self, append: Append) -> list[int]:
        """The append alone in one statement, on a connection of its own."""
        async with self._pool.connection() as conn:
            return await self._write_one(conn, append)

    async def _write_one(self, conn: asyncpg.Connection, append: Append) -> list[int]:
        """One append in one statement; its errors translated."""
        rows = await self._statement(conn, append)
        self._committed(append, [row[1] for row in rows])
        return [row[0] for row in rows]

    async def _statement(self, conn: asyncpg.Connection, append: Append) -> list[Any]:
        """The append's statement, its rows (position, outbox id); its errors translated."""
        stream_id, expected_version, row = append.stream_id, append.expected_version, append.row
        params = append_params(stream_id, expected_version, append.events, append.now, row)
        try:
            rows = await conn.fetch(append_sql(row), *params)
        except asyncpg.UniqueViolationError as exc:
            if row is not None and exc.table_name == row.table.name:
                raise RowConflict(row.table.name, str(exc)) from exc
            if exc.constraint_name == EVENT_ID_INDEX:
                message = f"events: an event id is already stored ({exc})"
                raise DuplicateEventId(message) from exc
            if conn.is_in_transaction():  # aborted until it ends: ask on another connection
                async with self._pool.connection() as other:
                    raise await _conflict(other, stream_id, expected_version) from exc
            raise await _conflict(conn, stream_id, expected_version) from exc
        if not rows:  # the stream is behind expected_version: appending would leave a gap
            raise await _conflict(conn, stream_id, expected_version)
        return list(rows)

    def _committed(self, append: Append, outbox_ids: list[int | None]) -> None:
        if self.committed is not None:
            self.committed.add(
                append.stream_id, append.expected_version, append.events, outbox_ids, append.now
            )

    async def fetch(self, sql: str, *args: Any, repeatable: bool = False) -> list[asyncpg.Record]:
        """Run one more statement of the store's hot path (the relay's) on this pool.

        On a connection the server had closed (a restart, a failover) it runs once more on
        a new one when it was never sent, or when it is `repeatable` (a read, or a write
        whose second run changes nothing more: the caller says so); a write that may have
        committed is not run again. Nothing is checked before the statement: no round trip
        is added when nothing failed."""
        try:
            return await self._fetch(sql, args)
        except StoreUnavailable as exc:
            cause = exc.__cause__ or exc
            if not (lost_before_sent(cause) or (repeatable and server_closed(cause))):
                raise
            log.warning("%s; retried on a new connection (%s)", CONNECTION_LOST_SAYS, exc)
        return await self._fetch(sql, args)

    async def _fetch(self, sql: str, args: tuple[Any, ...]) -> list[asyncpg.Record]:
        async with self._pool.connection() as conn:
            return list(await conn.fetch(sql, *args))

    async def close(self, within: float = GOODBYE_SECONDS) -> bool:
        """Let the appends already queued finish, then close the pool's connections, all in
        `within` seconds (False when the server did not answer in time, and they were
        dropped: `close_pool`); a later append opens a new pool."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        mine = [task for task in self._running if task.get_loop() is loop]
        if mine:
            # An append a frozen server does not answer would wait out its statement's bound;
            # dropped with the pool, it is committed or rolled back by the server, never lost.
            await asyncio.wait(mine, timeout=within)
        return await self._pool.close(max(deadline - loop.time(), 0.0))


async def _conflict(
    conn: asyncpg.Connection, stream_id: str, expected_version: int
) -> ConcurrencyConflict:
    # Autocommit: the failed statement left no aborted transaction, so ask on this connection.
    actual = await conn.fetchval(HEAD_SQL, stream_id)
    return ConcurrencyConflict(stream_id, expected_version, int(actual))
