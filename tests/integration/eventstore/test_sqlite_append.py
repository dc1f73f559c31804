"""SQLite files: stand-alone appends and the relay's statements run as one call on a thread.

The store's contract (test_store_contract, test_row_write, test_sqlite_writers) runs on this
path already; here is what is particular to it: rows stored exactly as SQLAlchemy stores
them, in-memory databases left on SQLAlchemy, the engine's lock and settings shared, a
cancelled append, and a database that cannot be written.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import JSON, Column, DateTime, MetaData, String, Table, text

from baton_eventstore import (
    ConcurrencyConflict,
    NewEvent,
    OutboxMessage,
    RowWrite,
    SqlEventStore,
    StoreUnavailable,
)
from baton_eventstore.sqlite_append import SqliteAppender

from ...sqlite_engines import impatient_sqlite_engine

metadata = MetaData()
notes = Table(
    "notes",
    metadata,
    Column("note_id", String(64), primary_key=True),
    Column("doc", JSON, nullable=True),
    Column("at", DateTime(timezone=True), nullable=False),
)
AT = datetime(2026, 11, 24, 5, 30, 1, 250_000, tzinfo=UTC)


def ev(n: int, publish: bool = True) -> NewEvent:
    message = OutboxMessage(f"t.evt.{n}", b"b%d" % n, {"h": "v"}) if publish else None
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n, "s": "naïve ☃"}, {"m": n}, message)


@pytest.fixture
async def store(sqlite_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(sqlite_url)
    async with store.engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
    yield store
    await store.close()


async def _raw(store: SqlEventStore, sql: str) -> list[tuple[Any, ...]]:
    async with store.engine.connect() as conn:
        return [tuple(row) for row in await conn.execute(text(sql))]


async def test_a_file_store_appends_on_its_own_thread_a_memory_one_on_sqlalchemy() -> None:
    memory = await SqlEventStore.from_url("sqlite+aiosqlite://")
    try:
        assert memory.sqlite is None  # a second connection would see another, empty database
        with pytest.raises(ValueError, match="url: SqliteAppender needs a SQLite file"):
            SqliteAppender(memory.engine)
        await memory.append("s", 0, [ev(1)])
        assert [e.version for e in await memory.load("s")] == [1]
        assert len(await memory.outbox.fetch(10)) == 1
    finally:
        await memory.close()


async def test_rows_are_stored_as_sqlalchemy_stores_them(store: SqlEventStore) -> None:
    assert store.sqlite is not None
    first = ev(1)
    second = replace(first, event_id=uuid.uuid4())
    async with store.transaction() as tx:  # SQLAlchemy's statements
        await tx.append("by-sqlalchemy", 0, [first])
        await tx.write_row(RowWrite(notes, {"note_id": "a"}, {"doc": None, "at": AT}, True))
    recorded = await store.append(  # the appender's
        "by-appender", 0, [second], RowWrite(notes, {"note_id": "b"}, {"doc": None, "at": AT}, True)
    )
    events = await _raw(
        store,
        "SELECT stream_id, typeof(event_id), length(event_id), payload, metadata, "
        "typeof(recorded_at), length(recorded_at) FROM events ORDER BY position",
    )
    assert [row[1:] for row in events[:1]] == [row[1:] for row in events[1:]]
    outbox = await _raw(
        store, "SELECT typeof(event_id), typeof(body), headers, length(created_at) FROM outbox"
    )
    assert outbox[0] == outbox[1] == ("text", "blob", '{"h": "v"}', outbox[0][3])
    rows = await _raw(store, "SELECT note_id, doc, typeof(doc), at FROM notes ORDER BY note_id")
    assert rows == [("a", "null", "text", rows[0][3]), ("b", "null", "text", rows[0][3])]
    assert [e.position for e in await store.read_all()] == [1, recorded[0].position]
    assert await store.load("by-appender") == recorded
    assert [r.event_id for r in await store.outbox.fetch(10)] == [first.event_id, second.event_id]


async def test_the_relays_fetch_leaves_out_published_rows_and_keeps_order(
    store: SqlEventStore,
) -> None:
    for n in range(5):
        await store.append(f"s-{n}", 0, [ev(n), ev(n + 10, publish=False), ev(n + 20)])
    rows = await store.outbox.fetch(4)
    assert [r.subject for r in rows] == ["t.evt.0", "t.evt.20", "t.evt.1", "t.evt.21"]
    assert all(r.headers == {"h": "v"} and r.body.startswith(b"b") for r in rows)
    rest = await store.outbox.fetch(100, exclude=[r.id for r in rows])
    assert [r.subject for r in rest] == [f"t.evt.{n}" for n in (2, 22, 3, 23, 4, 24)]
    await store.outbox.delete([r.id for r in rows])
    assert await store.outbox.count() == 6
    await store.outbox.delete(list(range(1, 10_000)))  # more ids than SQLite binds at once
    assert await store.outbox.count() == 0


async def test_an_append_waits_for_the_engines_write_transaction(tmp_path: Path) -> None:
    store = SqlEventStore(impatient_sqlite_engine(tmp_path / "store.db"))
    await store.migrate()
    try:
        async with store.transaction() as tx:
            await tx.append("held", 0, [ev(0)])
            waiting = asyncio.create_task(store.append("waiting", 0, [ev(1)]))
            await asyncio.sleep(0.05)
            assert not waiting.done()  # queued on the process's lock, not failed as "locked"
        await waiting
        assert await store.stream_version("waiting") == 1
    finally:
        await store.close()


async def test_a_cancelled_append_holds_the_lock_until_its_transaction_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = SqliteAppender._open

    def slow(self: SqliteAppender) -> sqlite3.Connection:
        conn = opened(self)  # each event insert takes 50 ms: a transaction that stays open
        conn.set_trace_callback(lambda sql: time.sleep(0.05) if "INTO events" in sql else None)
        return conn

    monkeypatch.setattr(SqliteAppender, "_open", slow)
    # Busy timeout 0: a writer reaching SQLite while the append's transaction is still open
    # fails with "database is locked" instead of waiting.
    store = SqlEventStore(impatient_sqlite_engine(tmp_path / "store.db"))
    await store.migrate()
    try:
        task = asyncio.create_task(store.append("cancelled", 0, [ev(1)]))
        await asyncio.sleep(0.02)  # inside its transaction now
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        async with store.transaction() as tx:  # waits for the lock, then writes
            await tx.append("after", 0, [ev(2)])
        # The transaction the caller gave up on still ended as SQLite ended it: committed.
        assert [e.version for e in await store.load("cancelled")] == [1]
        assert len(await store.outbox.fetch(10)) == 2
    finally:
        await store.close()


async def test_a_locked_database_is_unavailable_and_nothing_stored_is_lost(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    store = SqlEventStore(impatient_sqlite_engine(path))
    await store.migrate()
    try:
        kept = await store.append("s", 0, [ev(1)])
        other = sqlite3.connect(path, isolation_level=None)  # another process's writer
        other.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StoreUnavailable, match=r"SQLite: .*database is locked"):
                await store.append("s", 1, [ev(2)])
            with pytest.raises(StoreUnavailable, match="SQLite"):
                await store.outbox.delete([1])
        finally:
            other.rollback()
            other.close()
        assert await store.load("s") == kept
        with pytest.raises(ConcurrencyConflict):
            await store.append("s", 0, [ev(3)])
        await store.append("s", 1, [ev(2)])
        assert [e.version for e in await store.load("s")] == [1, 2]
        assert len(await store.outbox.fetch(10)) == 2
    finally:
        await store.close()


async def test_a_closed_appender_opens_again_on_the_next_append(store: SqlEventStore) -> None:
    assert store.sqlite is not None
    await store.append("s", 0, [ev(1)])
    await store.sqlite.close()
    await store.append("s", 1, [ev(2)])
    assert [e.version for e in await store.load("s")] == [1, 2]
