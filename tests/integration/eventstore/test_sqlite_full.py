"""A SQLite file whose disk is full: the append is `StoreUnavailable` saying so, nothing of it
is kept (no event without its outbox row), and the same store appends again once there is room.

The full disk is SQLite's own `PRAGMA max_page_count` (SQLITE_FULL, "database or disk is
full", as on a disk with no space left), so no small disk has to be mounted."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from baton_eventstore import (
    NewEvent,
    OutboxMessage,
    SqlEventStore,
    StoreUnavailable,
    nothing_written,
    storage_full,
)
from baton_eventstore.sqlite_append import SqliteAppender


def big(n: int) -> NewEvent:
    """An event of more pages than a full file has room for."""
    message = OutboxMessage(f"t.evt.{n}", b"x" * 20_000, {})
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n, "text": "y" * 20_000}, {}, message)


async def test_a_full_disk_keeps_nothing_of_the_append_and_the_store_recovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = [False]
    connections: list[sqlite3.Connection] = []
    opened = SqliteAppender._open

    def limited(self: SqliteAppender) -> sqlite3.Connection:
        conn = opened(self)
        if full[0]:  # not a page more than the file has
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        connections.append(conn)
        return conn

    monkeypatch.setattr(SqliteAppender, "_open", limited)
    store = await SqlEventStore.from_url(f"sqlite+aiosqlite:///{tmp_path / 'store.db'}")
    try:
        kept = await store.append("s", 0, [big(1)])
        assert store.sqlite is not None
        await store.sqlite.close()  # opened again, full, by the next append
        full[0] = True
        with pytest.raises(StoreUnavailable, match="database or disk is full") as caught:
            await store.append("s", 1, [big(2)])
        assert storage_full(caught.value) and nothing_written(caught.value)
        assert await store.load("s") == kept
        assert [row.subject for row in await store.outbox.fetch(10)] == ["t.evt.1"]

        # Space freed: the same connection of the same store writes again, with no restart.
        connections[-1].execute("PRAGMA max_page_count = 1073741823")
        await store.append("s", 1, [big(2)])
        assert [e.version for e in await store.load("s")] == [1, 2]
        assert [row.subject for row in await store.outbox.fetch(10)] == ["t.evt.1", "t.evt.2"]
    finally:
        await store.close()
