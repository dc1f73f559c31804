"""`SqliteAppender`: stand-alone SQLite appends as one call on a thread of their own.

Through SQLAlchemy on aiosqlite, an append is a pool checkout, BEGIN, a head check, two
INSERTs, the read row, COMMIT and the pool's reset: each a hop to aiosqlite's thread and back
through the event loop, and the relay's fetches and deletes as many again. Here the whole
transaction is one function run on one thread that owns one `sqlite3` connection, so an
append (or a relay's fetch) is one hop. Values are converted by the engine's own column types
(`SqliteBinder`), so rows read back through SQLAlchemy are the same as if SQLAlchemy had
written them, and the connection takes the settings of the engine's own (journal mode,
synchronous, busy timeout), read once from one of them.

File databases only: an in-memory database is private to its connection, so the store keeps
the SQLAlchemy path for it (`SqliteAppender.supports`).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import lru_cache, partial
from typing import Any, TypeVar

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.engine import write_lock
from baton_eventstore.model import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    OutboxRow,
    refuse_if_late,
)
from baton_eventstore.row_write import RowConflict, RowWrite
from baton_eventstore.sqlite_binding import EVENT_COLUMNS, OUTBOX_COLUMNS, SqliteBinder
from baton_eventstore.unavailable import StoreUnavailable, is_unavailable

T = TypeVar("T")

_HEAD = "SELECT COALESCE(MAX(version), 0) FROM events WHERE stream_id = ?"
_INSERT_EVENT = f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)"
_INSERT_OUTBOX = f"INSERT INTO outbox ({', '.join(OUTBOX_COLUMNS)}) VALUES (?, ?, ?, ?, ?)"
# Ids (left out, or deleted) come as one JSON array: any number of them in one parameter.
_FETCH = """
SELECT id, event_id, subject, body, headers, created_at FROM outbox
WHERE id NOT IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?
"""
# Per-connection settings taken from the engine's own connections (`create_engine` sets them,
# a test's engine may set others): WAL, how hard a commit syncs, how long to wait for a lock.
_MIRRORED = ("journal_mode", "synchronous", "busy_timeout")
_DELETE = "DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))"


class SqliteAppender:
    """Appends and the relay's outbox statements for one SQLite file, on one thread.

    Writes take the process's write lock for the engine (`write_lock`), the one that
    SQLAlchemy write transactions of the same store take, so the two paths queue for the
    file instead of meeting in SQLite's busy handler.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        if not self.supports(engine):
            raise ValueError("url: SqliteAppender needs a SQLite file, not an in-memory database")
        self._engine = engine
        args, options = engine.dialect.create_connect_args(engine.url)
        self._connect: Callable[[], sqlite3.Connection] = partial(
            sqlite3.connect,
            *args,
            **{**options, "check_same_thread": False, "isolation_level": None},
        )
        self._conn: sqlite3.Connection | None = None
        self._pragmas: list[str] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._bind = SqliteBinder(engine.dialect)

    @staticmethod
    def supports(engine: AsyncEngine) -> bool:
        """True for an engine on a SQLite file (not `:memory:` or a `mode=memory` URI)."""
        if engine.dialect.name != "sqlite":
            return False
        args, _options = engine.dialect.create_connect_args(engine.url)
        name = str(args[0]) if args else ":memory:"
        return name != ":memory:" and "mode=memory" not in name

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        now: datetime,
        row: RowWrite | None = None,
        start_by: datetime | None = None,
        before: Callable[[sqlite3.Connection], None] | None = None,
    ) -> list[int]:
        """Insert events, outbox rows and the read `row` in one transaction; the events'
        positions. Raises ConcurrencyConflict, DuplicateEventId or RowConflict, having written
        nothing, StoreUnavailable when the file cannot be written, and StartByPassed, having
        begun nothing, when `start_by` (aware) came while it waited for the write lock.

        `before`, when given, runs on the connection (on its thread) once the transaction
        holds the database's write lock, before anything is written: what the append depends
        on is counted there, and no other writer can change it. It refuses by raising, and
        nothing is written."""
        event_rows = [self._bind.event(stream_id, expected_version + i + 1, e, now)
                      for i, e in enumerate(events)]  # fmt: skip
        outbox_rows = [self._bind.outbox(e, now) for e in events if e.publish is not None]
        written = None
        if row is not None:
            sql = _row_sql(row.table, tuple(row.key), tuple(row.values), row.create)
            written = (row.table.name, sql, self._bind.row(row))
        work = partial(
            _append, stream_id, expected_version, event_rows, outbox_rows, written, before
        )
        return await self._write(work, stream_id, start_by)

    async def fetch(self, limit: int, exclude: Sequence[int] = ()) -> list[OutboxRow]:
        """The oldest `limit` outbox rows not in `exclude`, in id order."""
        found = await self._read(partial(_fetch, limit, json.dumps(list(exclude))))
        return self._bind.outbox_rows(found)

    async def delete(self, ids: Sequence[int]) -> None:
        """Forget published outbox rows."""
        if ids:
            await self._write(partial(_delete, json.dumps(list(ids))))

    async def close(self) -> None:
        """Close the connection and stop the thread; a later call opens them again."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        try:
            await asyncio.get_running_loop().run_in_executor(executor, self._close_connection)
        finally:
            executor.shutdown(wait=False)

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    async def _settings(self) -> None:
        """Read the engine's connection settings once, for this connection to take the same."""
        if self._pragmas is not None:
            return
        pragmas = []
        async with self._engine.connect() as conn:
            for name in _MIRRORED:
                value = (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                pragmas.append(f"PRAGMA {name}={value}")
        self._pragmas = pragmas

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        await self._settings()
        # A cancelled read leaves the thread to finish it; nothing waits on the result.
        return await asyncio.get_running_loop().run_in_executor(self._thread(), self._call, work)

    async def _write(
        self,
        work: Callable[[sqlite3.Connection], T],
        stream_id: str = "",
        start_by: datetime | None = None,
    ) -> T:
        await self._settings()
        lock = write_lock(self._engine)
        await lock.acquire()
        try:
            # The wait for the lock (the process's other writers, each maybe held up by
            # another process's write) is behind it: a transaction begun past its start-by
            # would be recorded after its caller was told it was not.
            refuse_if_late(stream_id, start_by)
            future = asyncio.get_running_loop().run_in_executor(self._thread(), self._call, work)
        except BaseException:
            lock.release()
            raise
        future.add_done_callback(partial(_release, lock))
        # Shielded: a caller cancelled mid-transaction does not free the lock (or this thread)
        # before the transaction has ended, committed or rolled back.
        return await asyncio.shield(future)

    def _thread(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="baton-sqlite-append")
        return self._executor

    def _call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """On the thread: run `work` on the connection; a failure (a conflict too) rolls back
        what it began, so no transaction is left open."""
        try:
            if self._conn is None:
                self._conn = self._open()
            return work(self._conn)
        except BaseException as exc:
            if self._conn is not None and self._conn.in_transaction:
                self._conn.rollback()
            if isinstance(exc, sqlite3.Error) and is_unavailable(exc):
                raise StoreUnavailable(f"SQLite: {exc.__class__.__name__}: {exc}") from exc
            raise

    def _open(self) -> sqlite3.Connection:
        conn = self._connect()
        try:
            for pragma in self._pragmas or ():
                conn.execute(pragma)
        except BaseException:
            conn.close()
            raise
        return conn


def _release(lock: asyncio.Lock, future: asyncio.Future[Any]) -> None:
    lock.release()
    if not future.cancelled():
        future.exception()  # retrieved: a caller that was cancelled is not there to see it


def _append(
    stream_id: str,
    expected_version: int,
    event_rows: list[tuple[Any, ...]],
    outbox_rows: list[tuple[Any, ...]],
    row: tuple[str, str, tuple[Any, ...]] | None,
    before: Callable[[sqlite3.Connection], None] | None,
    conn: sqlite3.Connection,
) -> list[int]:
    # IMMEDIATE takes the write lock now, so the head read below cannot go stale before the
    # inserts: within this transaction the check is exact.
    conn.execute("BEGIN IMMEDIATE")
    if before is not None:
        before(conn)
    head = conn.execute(_HEAD, (stream_id,)).fetchone()[0]
    if head != expected_version:
        raise ConcurrencyConflict(stream_id, expected_version, int(head))
    positions = []
    try:
        for params in event_rows:
            cursor = conn.execute(_INSERT_EVENT, params)
            positions.append(int(cursor.lastrowid or 0))
    except sqlite3.IntegrityError as exc:
        if "event_id" in str(exc):
            raise DuplicateEventId(f"events: an event id is already stored ({exc})") from exc
        raise
    if outbox_rows:
        conn.executemany(_INSERT_OUTBOX, outbox_rows)
    if row is not None:
        table, sql, params = row
        try:
            conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise RowConflict(table, str(exc)) from exc
    conn.commit()
    return positions


def _fetch(limit: int, exclude: str, conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute(_FETCH, (exclude, limit)).fetchall()


def _delete(ids: str, conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(_DELETE, (ids,))
    conn.commit()


@lru_cache(maxsize=64)
def _row_sql(table: Table, keys: tuple[str, ...], values: tuple[str, ...], create: bool) -> str:
    """The row's statement; its parameters are `SqliteBinder.row`'s, in the same order."""
    if create:
        names = (*keys, *values)
        marks = ", ".join("?" * len(names))
        return f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({marks})"
    sets = ", ".join(f"{name} = ?" for name in values)
    where = " AND ".join(f"{name} = ?" for name in keys)
    return f"UPDATE {table.name} SET {sets} WHERE {where}"
