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
failover, `pg_terminate_backend`) may or may not have committed. It is not failed at once:
on a new connection its event ids are looked up (`_recover`). Stored as it wrote them, it
committed, and its caller gets its positions; with nothing of it stored it is written once
more. It fails, `StoreUnavailable` (a 503), only when something else is stored under its ids,
or when the database cannot be reached to find out: the look-up is tried again for up to
`LOOKUP_PATIENCE` seconds (never past the append's start-by), so that a quick restart, which
refuses connections or says it is shutting down or starting up for a moment, is ridden out.
The event ids' unique key keeps a second write from storing it twice, whatever became of the
first. None of this costs a round trip while no connection is lost.

Every committed append goes to `committed` (when given) with its outbox rows' ids, which the
statements return, so the store's relay can publish them without reading them back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.asyncpg_pool import LazyPool
from baton_eventstore.committed import CommittedLog
from baton_eventstore.model import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    StartByPassed,
    refuse_if_late,
)
from baton_eventstore.pg_append import EVENT_ID_INDEX, HEAD_SQL, append_params, append_sql
from baton_eventstore.pg_batch import Append, batch_statement
from baton_eventstore.row_write import RowConflict, RowWrite
from baton_eventstore.unavailable import (
    CONNECTION_LOST,
    CONNECTION_LOST_SAYS,
    StoreUnavailable,
    lost_before_sent,
    server_closed,
)

log = logging.getLogger(__name__)

DEFAULT_WRITERS = 4
"""Append statements in flight at once; more appends than this wait and go together."""
DEFAULT_MAX_BATCH = 256
LOOKUP_PATIENCE = 2.0
"""Seconds a cut-off append's look-up is tried again while the database cannot be reached.
Its connection was cut as the server shut down, so the look-up comes at once, while the
server refuses connections or says it is shutting down or starting up (`CannotConnectNowError`);
a quick restart is over within this, a longer outage still fails the append, a little later."""
FIRST_LOOKUP_PAUSE = 0.1
"""The pause before the look-up's second try; each later pause is twice the one before."""


@dataclass
class _Waiting:
    """An append in the queue, and where its outcome goes."""

    append: Append
    outcome: asyncio.Future[list[int]] = field(repr=False)

    def succeed(self, positions: list[int]) -> None:
        """Hand the caller its positions (unless it gave up)."""
        if not self.outcome.done():
            self.outcome.set_result(positions)

    def fail(self, exc: BaseException) -> None:
        """Hand the caller its error (unless it gave up)."""
        if not self.outcome.done():
            self.outcome.set_exception(exc)


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
        self._queue: deque[_Waiting] = deque()
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
        as committed, or written once more (`_recover`); StoreUnavailable when that cannot be
        told.

        `before`, when given, runs on the connection in a transaction the append then joins
        (`_append_after`).

        Cancelling the caller while its statement is in flight does not stop the statement
        (other appends may share it): as with any cut-off write, it may or may not commit.
        """
        if before is not None:
            append = Append(stream_id, expected_version, events, now, row, start_by)
            return await self._append_after(before, append)
        waiting = _Waiting(
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
            while batch := self._take():
                await self._write(batch)
        finally:
            # With no await since the last look at the queue: what waits now has a writer
            # (one still in flight takes it after its own batch) or gets a new one.
            self._writing -= 1

    async def _write(self, batch: list[_Waiting]) -> None:
        streams = [waiting.append.stream_id for waiting in batch]
        self._in_flight.update(streams)
        try:
            try:
                await self._write_on_a_connection(batch)
            except StoreUnavailable as exc:
                if not lost_before_sent(exc.__cause__ or exc):
                    await self._recover_batch(batch, exc)
                    return
                # The server had closed the connection (a restart ended every pooled one)
                # and the statement was never sent: the appends not yet settled go again,
                # on a new connection (the pool expired the old ones).
                log.warning("%s; retried on a new connection (%s)", CONNECTION_LOST_SAYS, exc)
                try:
                    await self._write_on_a_connection(batch)
                except StoreUnavailable as again:
                    await self._recover_batch(batch, again)
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

    async def _recover_batch(self, batch: list[_Waiting], exc: StoreUnavailable) -> None:
        """After `exc`: raised again unless the server closed the connection. Then each append
        of the batch still unsettled was cut off, and may have committed: `_recover` finds
        out for each alone, on a new connection, and one not committed is written again alone
        (as `_write_batch` writes them when the statement refused one): each gets its own
        outcome."""
        if not server_closed(exc.__cause__ or exc):
            raise exc
        until = time.monotonic() + LOOKUP_PATIENCE  # for the batch, not each of its appends
        for waiting in batch:
            if not waiting.outcome.done():
                append = waiting.append
                again = partial(self._alone, append)
                await _settle(waiting, self._recover(append, exc, again, until))

    async def _write_on_a_connection(self, batch: list[_Waiting]) -> None:
        async with self._pool.connection() as conn:
            # Looked at once the connection is there, just before the statement: every
            # wait (for a writer, for a pooled connection) is behind it. Settled appends
            # (written alone before the connection broke) are not sent again.
            batch = _still_due([waiting for waiting in batch if not waiting.outcome.done()])
            if not batch:
                return
            if len(batch) == 1:
                await _settle(batch[0], self._write_one(conn, batch[0].append))
            else:
                await self._write_batch(conn, batch)

    def _take(self) -> list[_Waiting]:
        """The oldest waiting appends, one per stream, skipping those whose caller gave up.

        A stream's append waits while an earlier one of that stream is in flight, so the
        appends of one stream are written in the order they were called.
        """
        batch: list[_Waiting] = []
        streams = set(self._in_flight)
        left: deque[_Waiting] = deque()
        while self._queue and len(batch) < self.max_batch:
            waiting = self._queue.popleft()
            if waiting.outcome.done():
                continue
            if waiting.append.stream_id in streams:
                left.append(waiting)
                continue
            streams.add(waiting.append.stream_id)
            batch.append(waiting)
        left.extend(self._queue)
        self._queue = left
        # In stream order: two replicas' batches that share streams then take their locks
        # (the events' unique key, the read rows) in the same order, and cannot deadlock.
        batch.sort(key=lambda waiting: waiting.append.stream_id)
        return batch

    async def _write_batch(self, conn: asyncpg.Connection, batch: list[_Waiting]) -> None:
        try:
            # Built here, not per append: one append's read row JSON cannot encode (a TypeError)
            # must fail that append only, as the statement's own errors do.
            sql, params = batch_statement([waiting.append for waiting in batch])
            rows = await conn.fetch(sql, *params)
        except (asyncpg.PostgresError, ValueError, TypeError) as exc:
            if _gone(exc):
                raise
            # Some append conflicts or is refused, and the statement wrote nothing: written
            # alone, each append gets its own outcome. Each is a statement sent anew, maybe a
            # lock's wait later (a unique key another transaction holds): its start-by again.
            for waiting in batch:
                if _still_due([waiting]):
                    await _settle(waiting, self._write_one(conn, waiting.append))
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
        maybe written again (`_recover`), `before` included."""
        try:
            return await self._append_after_once(before, append)
        except StoreUnavailable as exc:
            if not server_closed(exc.__cause__ or exc):
                raise
            again = partial(self._append_after_once, before, append)
            return await self._recover(append, exc, again)

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

    async def _recover(
        self,
        append: Append,
        cut: StoreUnavailable,
        again: Callable[[], Awaitable[list[int]]],
        until: float | None = None,
    ) -> list[int]:
        """The outcome of an append whose connection the server closed (a restart, a failover)
        before its answer came, so that it may or may not have committed, found out on a new
        connection. Its events stored as it wrote them (its stream, the versions after
        `expected_version`, in order): it committed, and their positions are its answer. Nothing
        of it stored: it never did, and it is written once more (`again`), that write's outcome
        being its answer; a write again refused because its events are there after all (the
        cut statement was still running) is answered as committed too. Anything else stored
        under its event ids (a part of them, another stream or version) fails it,
        `StoreUnavailable` as before, saying so: neither written again nor answered committed.

        An append answered as committed so is not put in the relay's log (`committed`): the
        relay may have fetched, published and deleted its outbox row meanwhile, and a row
        published from the log after that would go out twice. Not logged, it is published by
        a fetch, which takes each row once, in commit order (`OutboxRelay`).

        The look-up is tried again while the database cannot be reached, until `until`
        (`time.monotonic()`; `LOOKUP_PATIENCE` from now when not given) or the append's
        start-by, whichever comes first (`_stored`)."""
        until = time.monotonic() + LOOKUP_PATIENCE if until is None else until
        stored = await self._stored(append, until)
        if not stored:
            start_by = append.start_by
            if start_by is not None and datetime.now(UTC) >= start_by:
                # Not StartByPassed ("nothing recorded"): the cut statement may yet commit.
                raise StoreUnavailable(
                    f"{cut}; nothing of the append is stored, and it is not sent again: "
                    f"its start-by ({start_by.isoformat()}) has come"
                ) from cut
            log.warning("%s; nothing of the append was stored: written again (%s)",
                        CONNECTION_LOST_SAYS, cut)  # fmt: skip
            try:
                return await again()
            except (ConcurrencyConflict, DuplicateEventId, RowConflict):
                stored = await self._stored(append, until)
                if not stored:
                    raise
        positions = _as_written(append, stored)
        if positions is None:
            raise StoreUnavailable(
                f"{cut}; its event ids are stored, but not as this append wrote them "
                f"({_describe(append, stored)}): not written again"
            ) from cut
        log.warning("%s; the append had been committed: answered as committed (%s)",
                    CONNECTION_LOST_SAYS, cut)  # fmt: skip
        return positions

    async def _stored(self, append: Append, until: float) -> list[asyncpg.Record]:
        """The stored events with the append's event ids (stream, version, id, position).

        A look-up the database could not answer (`StoreUnavailable`: a read, safe to run again)
        is tried again after a pause, each twice the one before, while the pause ends before
        `until` (`time.monotonic()`) and the append's start-by; else its error is raised."""
        ids = [event.event_id for event in append.events]
        pause = FIRST_LOOKUP_PAUSE
        while True:
            try:
                return await self.fetch(STORED_SQL, ids, repeatable=True)
            except StoreUnavailable as exc:
                if _seconds_left(until, append.start_by) < pause:
                    raise
                log.warning("the database could not be reached to look a cut-off append up"
                            " (%s); trying again in %.1f s", exc, pause)  # fmt: skip
            await asyncio.sleep(pause)
            pause *= 2

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

    async def close(self) -> None:
        """Let the appends already queued finish, then close the pool's connections; a later
        append opens a new pool."""
        loop = asyncio.get_running_loop()
        mine = [task for task in self._running if task.get_loop() is loop]
        await asyncio.gather(*mine, return_exceptions=True)
        await self._pool.close()


STORED_SQL = (
    "SELECT stream_id, version, event_id, position FROM events "
    "WHERE event_id = ANY(CAST($1 AS uuid[]))"
)
"""The events stored under some event ids, in any stream: what an append cut off left."""


def _as_written(append: Append, stored: Sequence[asyncpg.Record]) -> list[int] | None:
    """The positions of the append's events when `stored` holds exactly them, each in the
    append's stream at the version it would have given it; None otherwise."""
    by_id = {row["event_id"]: row for row in stored}
    positions: list[int] = []
    for offset, event in enumerate(append.events, start=1):
        row = by_id.get(event.event_id)
        if row is None or row["stream_id"] != append.stream_id:
            return None
        if row["version"] != append.expected_version + offset:
            return None
        positions.append(row["position"])
    return positions if len(stored) == len(append.events) else None


def _seconds_left(until: float, start_by: datetime | None) -> float:
    """Seconds until `until` (`time.monotonic()`), or until `start_by` if that comes first."""
    left = until - time.monotonic()
    if start_by is not None:
        left = min(left, (start_by - datetime.now(UTC)).total_seconds())
    return left


def _describe(append: Append, stored: Sequence[asyncpg.Record]) -> str:
    """What is stored of an append's events against what it would have written, for an error."""
    wanted = f"{len(append.events)} event(s) at {append.stream_id!r} v{append.expected_version + 1}"
    found = ", ".join(f"{row['stream_id']!r} v{row['version']}" for row in stored[:5])
    more = f" and {len(stored) - 5} more" if len(stored) > 5 else ""
    return f"{len(stored)} of them found at {found}{more}; it wrote {wanted}"


def _gone(exc: BaseException) -> bool:
    """The connection is gone (every statement on it fails), not just this statement.

    asyncpg's client-side `DataError` (a value it cannot encode) is an `InterfaceError` too,
    but the connection is fine: it is the statement's fault.
    """
    return isinstance(exc, CONNECTION_LOST) and not isinstance(exc, ValueError)


def _still_due(batch: list[_Waiting]) -> list[_Waiting]:
    """The batch less the appends whose start-by has come, which fail `StartByPassed`, unsent.
    The clock is read once, and only when an append has a start-by."""
    now: datetime | None = None
    due: list[_Waiting] = []
    for waiting in batch:
        start_by = waiting.append.start_by
        if start_by is not None:
            now = now or datetime.now(UTC)
            if now >= start_by:
                waiting.fail(StartByPassed(waiting.append.stream_id, start_by))
                continue
        due.append(waiting)
    return due


async def _settle(waiting: _Waiting, work: Awaitable[list[int]]) -> None:
    """Run one append's write and hand its result or its error to the caller; an error that
    means the connection is gone is raised, for every append still on it."""
    try:
        result = await work
    except Exception as exc:
        if _gone(exc):
            raise
        waiting.fail(exc)
        return
    waiting.succeed(result)


async def _conflict(
    conn: asyncpg.Connection, stream_id: str, expected_version: int
) -> ConcurrencyConflict:
    # Autocommit: the failed statement left no aborted transaction, so ask on this connection.
    actual = await conn.fetchval(HEAD_SQL, stream_id)
    return ConcurrencyConflict(stream_id, expected_version, int(actual))
