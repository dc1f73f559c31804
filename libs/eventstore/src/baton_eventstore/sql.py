"""`SqlEventStore`: the event store on SQLAlchemy 2 Core (SQLite via aiosqlite, PG via asyncpg)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Executable, Result, Row, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from baton_eventstore.asyncpg_append import AsyncpgAppender
from baton_eventstore.closing import GOODBYE_SECONDS, dispose_engine, say_gave_up
from baton_eventstore.committed import CommittedLog
from baton_eventstore.engine import autocommit, create_engine, read, write_transaction
from baton_eventstore.migrations import migrate
from baton_eventstore.model import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    RecordedEvent,
    as_utc,
    check_start_by,
    refuse_if_late,
    validate_append,
)
from baton_eventstore.pg_append import pg_append
from baton_eventstore.port import check_load
from baton_eventstore.row_write import RowConflict, RowWrite, write_row
from baton_eventstore.sql_outbox import SqlOutbox
from baton_eventstore.sqlite_append import SqliteAppender
from baton_eventstore.tables import COMPONENT, STEPS, events, outbox

_COLUMNS = (
    events.c.stream_id,
    events.c.version,
    events.c.position,
    events.c.event_id,
    events.c.type,
    events.c.payload,
    events.c.metadata,
    events.c.recorded_at,
)
_INSERT_EVENTS = events.insert().returning(events.c.position, sort_by_parameter_order=True)
_INSERT_OUTBOX = outbox.insert()


class SqlEventStore:
    """The event store on a SQL database; create with `await SqlEventStore.from_url(url)`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.reader = autocommit(engine)
        """The engine for reads of one statement each (loads, read models): no BEGIN and
        ROLLBACK around them on PostgreSQL."""
        # Stand-alone appends and the relay's fetch and delete skip SQLAlchemy: on PostgreSQL
        # one statement each on a raw asyncpg pool, on a SQLite file one call each on a thread
        # that owns a sqlite3 connection.
        # What the asyncpg appender commits goes to the relay as it is, not read back.
        committed = CommittedLog() if _is_asyncpg(engine) else None
        self.appender = (
            AsyncpgAppender(engine, committed=committed) if committed is not None else None
        )
        self.sqlite = SqliteAppender(engine) if SqliteAppender.supports(engine) else None
        self.outbox = SqlOutbox(engine, self.appender, self.sqlite, committed)

    @classmethod
    async def from_url(cls, url: str, **engine_options: Any) -> SqlEventStore:
        """Connect, create or upgrade the schema, and return the store."""
        store = cls(create_engine(url, **engine_options))
        await store.migrate()
        return store

    async def migrate(self) -> None:
        """Bring the event store's tables to the current schema version (idempotent)."""
        await migrate(self.engine, COMPONENT, STEPS)

    async def close(self, within: float = GOODBYE_SECONDS) -> None:
        """Close every pooled connection (the engine's and the append pool's). On a PostgreSQL
        that does not answer, the two pools' goodbyes are given `within` seconds together,
        not one after the other, then the rest dropped, and `GAVE_UP` is logged once."""
        results = await asyncio.gather(
            self._close_appenders(within), dispose_engine(self.engine, within),
            return_exceptions=True,
        )  # fmt: skip
        if False in results:
            say_gave_up(self.engine)
        for failed in results:
            if isinstance(failed, BaseException):
                raise failed

    async def _close_appenders(self, within: float) -> bool:
        if self.appender is not None:
            return await self.appender.close(within)
        if self.sqlite is not None:
            await self.sqlite.close()
        return True

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqlTransaction]:
        """A unit of work on one connection: commit on exit, roll back on error."""
        async with write_transaction(self.engine) as conn:
            yield SqlTransaction(conn, self)

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        row: RowWrite | None = None,
        *,
        start_by: datetime | None = None,
    ) -> list[RecordedEvent]:
        """Append in a transaction of its own, with the read `row` when one is given.

        Raises ConcurrencyConflict, DuplicateEventId or RowConflict (the row broke a unique
        key of its table); in every case nothing was written.

        `start_by` (timezone-aware), when given, is when the append must have started: one
        still waiting then (for a free writer, for the process's write lock, for a pooled
        connection) is dropped and fails StartByPassed, nothing written. A statement already
        sent is never cut off (it could still commit), so an append that starts by then ends
        within the statement timeout after it.
        """
        validate_append(stream_id, expected_version, events)
        if start_by is not None:  # no call at all on the hot path without one
            check_start_by(start_by)
        raw = self.appender or self.sqlite
        if raw is None:
            async with self.transaction() as tx:
                refuse_if_late(stream_id, start_by)  # after the lock and the connection
                recorded = await tx.append(stream_id, expected_version, events)
                if row is not None:
                    await tx.write_row(row)
                return recorded
        now = datetime.now(UTC)
        positions = await raw.append(stream_id, expected_version, events, now, row, start_by)
        return recorded_events(stream_id, expected_version, events, positions, now)

    async def load(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with version > after_version, in version order (the first
        `limit` of them when given).

        On PostgreSQL one statement on the store's asyncpg pool: a chat turn reads its
        instance's tail before it asks the agent (most often no row), and through SQLAlchemy
        that read cost several times the CPU of the statement itself."""
        if self.appender is None:
            async with self.reader.connect() as conn:
                return await load_stream(conn, stream_id, after_version, limit)
        check_load(after_version, limit)
        if limit is None:
            rows = await self.appender.fetch(_PG_LOAD, stream_id, after_version, repeatable=True)
        else:
            rows = await self.appender.fetch(
                _PG_LOAD_SOME, stream_id, after_version, limit, repeatable=True
            )
        return [_pg_recorded(row) for row in rows]

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Committed events with position > after_position, in position order.

        On PostgreSQL positions come from a sequence and are taken at INSERT, not at COMMIT,
        so under concurrent writers a higher position can become visible before a lower one.
        A consumer that remembers "the last position I saw" may skip an event that commits
        later; see docs/eventstore.md for what to do about it. SQLite serialises writers, so
        positions there become visible in order.
        """
        if limit < 1:
            raise ValueError(f"limit: must be >= 1, got {limit}")
        query = (
            select(*_COLUMNS)
            .where(events.c.position > after_position)
            .order_by(events.c.position)
            .limit(limit)
        )
        return [_recorded(row) for row in await self.read(query)]

    async def stream_version(self, stream_id: str) -> int:
        """The stream's current version (0 when it does not exist)."""
        return int((await self.read(_head_query(stream_id))).scalar() or 0)

    async def read(self, statement: Executable) -> Result[Any]:
        """The buffered rows of the read `statement`, on `reader`: one statement, run once
        more on a new connection if the server had closed the pooled one (`engine.read`).
        Only for statements that change nothing."""
        return await read(self.reader, statement)


class SqlTransaction:
    """Appends and loads on one connection; `connection` is there for read-model statements."""

    def __init__(self, connection: AsyncConnection, store: SqlEventStore) -> None:
        self.connection = connection
        self._store = store

    async def load(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with version > after_version, as this transaction sees them
        (the first `limit` of them when given)."""
        return await load_stream(self.connection, stream_id, after_version, limit)

    async def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        """Insert the events (and their outbox rows); ConcurrencyConflict if the stream moved."""
        validate_append(stream_id, expected_version, events)
        now = datetime.now(UTC)
        try:
            if self.connection.dialect.name == "postgresql":
                positions = await pg_append(
                    self.connection, stream_id, expected_version, events, now
                )
            else:
                positions = await self._insert(stream_id, expected_version, events, now)
        except IntegrityError as exc:
            raise await self._translate(exc, stream_id, expected_version) from exc
        if not positions:  # the stream is behind expected_version: appending would leave a gap
            actual = await _head(self.connection, stream_id)
            raise ConcurrencyConflict(stream_id, expected_version, actual)
        return recorded_events(stream_id, expected_version, events, positions, now)

    async def write_row(self, row: RowWrite) -> None:
        """Insert or update one read row in this transaction; RowConflict on a unique key."""
        try:
            await write_row(self.connection, row)
        except IntegrityError as exc:
            raise RowConflict(row.table.name, str(exc.orig)) from exc

    async def _insert(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent], now: datetime
    ) -> list[int]:
        """Portable path: check the head, then one INSERT per table."""
        if expected_version > 0 and await _head(self.connection, stream_id) != expected_version:
            return []
        rows = [_event_row(stream_id, expected_version + i, e, now) for i, e in enumerate(events)]
        positions = [row[0] for row in await self.connection.execute(_INSERT_EVENTS, rows)]
        messages = [_outbox_row(e, now) for e in events if e.publish is not None]
        if messages:
            await self.connection.execute(_INSERT_OUTBOX, messages)
        return positions

    async def _translate(
        self, exc: IntegrityError, stream_id: str, expected_version: int
    ) -> Exception:
        if "event_id" in str(exc.orig):
            return DuplicateEventId(f"events: an event id is already stored ({exc.orig})")
        # The failed statement aborted this transaction on PostgreSQL: ask on another connection.
        actual = await self._store.stream_version(stream_id)
        return ConcurrencyConflict(stream_id, expected_version, actual)


def recorded_events(
    stream_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    positions: Sequence[int],
    now: datetime,
) -> list[RecordedEvent]:
    """The appended events as stored: versions from expected_version + 1, their positions."""
    return [
        RecordedEvent(
            stream_id,
            expected_version + i + 1,
            position,
            e.event_id,
            e.type,
            e.payload,
            e.metadata,
            now,
        )
        for i, (e, position) in enumerate(zip(events, positions, strict=True))
    ]


async def load_stream(
    conn: AsyncConnection, stream_id: str, after_version: int, limit: int | None = None
) -> list[RecordedEvent]:
    """One stream's events after a version, in version order (the first `limit`)."""
    check_load(after_version, limit)
    query = (
        select(*_COLUMNS)
        .where(events.c.stream_id == stream_id, events.c.version > after_version)
        .order_by(events.c.version)
        .limit(limit)
    )
    return [_recorded(row) for row in await conn.execute(query)]


async def _head(conn: AsyncConnection, stream_id: str) -> int:
    return int((await conn.execute(_head_query(stream_id))).scalar() or 0)


def _head_query(stream_id: str) -> Executable:
    return select(func.max(events.c.version)).where(events.c.stream_id == stream_id)


def _is_asyncpg(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "postgresql" and engine.dialect.driver == "asyncpg"


def _event_row(stream_id: str, offset: int, event: NewEvent, now: datetime) -> dict[str, Any]:
    return {
        "stream_id": stream_id,
        "version": offset + 1,
        "event_id": event.event_id,
        "type": event.type,
        "payload": event.payload,
        "metadata": event.metadata,
        "recorded_at": now,
    }


def _outbox_row(event: NewEvent, now: datetime) -> dict[str, Any]:
    assert event.publish is not None
    message = event.publish
    return {
        "event_id": event.event_id,
        "subject": message.subject,
        "body": message.body,
        "headers": message.headers,
        "created_at": now,
    }


_PG_LOAD = (
    "SELECT stream_id, version, position, event_id, type, payload, metadata, recorded_at "
    "FROM events WHERE stream_id = $1 AND version > CAST($2 AS bigint) ORDER BY version"
)
_PG_LOAD_SOME = f"{_PG_LOAD} LIMIT $3"


def _pg_recorded(row: Mapping[str, Any]) -> RecordedEvent:
    """An events row as asyncpg returns it (JSON columns as text) -> the event SQLAlchemy gives."""
    return RecordedEvent(
        stream_id=row["stream_id"],
        version=row["version"],
        position=row["position"],
        event_id=row["event_id"],
        type=row["type"],
        payload=json.loads(row["payload"]),
        metadata=json.loads(row["metadata"]),
        recorded_at=as_utc(row["recorded_at"]),
    )


def _recorded(row: Row[*tuple[Any, ...]]) -> RecordedEvent:
    return RecordedEvent(
        stream_id=row.stream_id,
        version=row.version,
        position=row.position,
        event_id=row.event_id,
        type=row.type,
        payload=row.payload,
        metadata=row.metadata,
        recorded_at=as_utc(row.recorded_at),
    )
