"""An append given a start-by is dropped, unwritten, if it is still waiting to start then.

A caller with a deadline (a chat turn, a signal) answers "nothing was recorded" once it has
passed; an append of it that waited for a free writer (each held up by a locked table) or for
the process's write lock, and was sent after that, was recorded all the same. Such an append
now fails `StartByPassed` and writes nothing; a statement already sent is never cut off (cut
off, it could still commit), and appends without a start-by wait as before.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from baton_eventstore import DuplicateEventId, NewEvent, SqlEventStore, StartByPassed


def ev(n: int) -> NewEvent:
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n})


def in_(seconds: float) -> datetime:
    return datetime.now(UTC) + timedelta(seconds=seconds)


class Session:
    """Another PostgreSQL session, in a transaction from `begin()` until `end()`."""

    def __init__(self, postgres_url: str) -> None:
        self.dsn = postgres_url.replace("postgresql+asyncpg://", "postgresql://", 1)
        self.conn: asyncpg.Connection | None = None

    async def begin(self, statement: str, *args: object) -> None:
        self.conn = await asyncpg.connect(self.dsn)
        await self.conn.execute("BEGIN")
        await self.conn.execute(statement, *args)

    async def end(self, how: str = "ROLLBACK") -> None:
        if self.conn is not None:
            await self.conn.execute(how)
            await self.conn.close()
            self.conn = None


@pytest.fixture
async def pg_store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(postgres_url)
    await store.append("opened", 0, [ev(0)])  # the append pool opens before any lock
    yield store
    await store.close()


async def versions(store: SqlEventStore, stream_id: str) -> list[int]:
    return [e.version for e in await store.load(stream_id)]


@pytest.mark.postgres
async def test_an_append_queued_behind_busy_writers_past_its_start_by_is_dropped(
    pg_store: SqlEventStore, postgres_url: str
) -> None:
    store = pg_store
    assert store.appender is not None
    store.appender.writers = 1
    lock = Session(postgres_url)
    await lock.begin("LOCK TABLE events")
    try:
        # Sent before its start-by, then held by the lock past it: not cut off, written.
        in_flight = asyncio.create_task(store.append("in-flight", 0, [ev(1)], start_by=in_(0.2)))
        await asyncio.sleep(0.1)
        late = asyncio.create_task(store.append("late", 0, [ev(2)], start_by=in_(0.2)))
        in_time = asyncio.create_task(store.append("in-time", 0, [ev(3)], start_by=in_(60)))
        unbounded = asyncio.create_task(store.append("unbounded", 0, [ev(4)]))
        await asyncio.sleep(0.4)  # the start-by of `late` comes while the writer is held
        assert not in_flight.done() and not late.done()
    finally:
        await lock.end()
    await in_flight
    with pytest.raises(StartByPassed, match="'late'") as dropped:
        await late
    await in_time
    await unbounded

    assert dropped.value.stream_id == "late"
    assert await versions(store, "late") == []
    assert await versions(store, "in-flight") == [1]
    assert await versions(store, "in-time") == [1]
    assert await versions(store, "unbounded") == [1]
    await store.append("late", 0, [ev(5)])  # nothing of it was written: version 0 still


@pytest.mark.postgres
async def test_an_append_resent_alone_after_its_batch_failed_keeps_its_start_by(
    pg_store: SqlEventStore, postgres_url: str
) -> None:
    # A batch refused for one append's sake is written again one append at a time: each a new
    # statement, sent maybe a lock's wait after the batch was.
    store = pg_store
    taken = ev(1)
    other = Session(postgres_url)  # inserts `taken`'s id, uncommitted: the batch waits on it
    await other.begin(
        "INSERT INTO events (stream_id, version, event_id, type, payload, metadata, recorded_at)"
        " VALUES ('other', 1, $1, 't', '{}', '{}', now())",
        taken.event_id,
    )
    try:
        duplicate = store.append("dup", 0, [taken])
        late = store.append("late", 0, [ev(2)], start_by=in_(0.2))
        results = asyncio.gather(duplicate, late, return_exceptions=True)
        await asyncio.sleep(0.4)
    finally:
        await other.end("COMMIT")
    outcome = await results

    assert isinstance(outcome[0], DuplicateEventId)
    assert isinstance(outcome[1], StartByPassed), outcome[1]
    assert await versions(store, "late") == []


@pytest.mark.parametrize("where", ["file", "memory"])
async def test_an_append_that_waited_for_the_write_lock_past_its_start_by_is_dropped(
    tmp_path: Path, where: str
) -> None:
    # A file's appends run on their own thread, an in-memory database's through SQLAlchemy:
    # both wait for the process's write lock, here held by a unit of work.
    url = (
        f"sqlite+aiosqlite:///{tmp_path / 'baton.db'}" if where == "file" else "sqlite+aiosqlite://"
    )
    store = await SqlEventStore.from_url(url)
    try:
        async with store.transaction() as tx:
            await tx.append("held", 0, [ev(1)])
            late = asyncio.create_task(store.append("late", 0, [ev(2)], start_by=in_(0.1)))
            in_time = asyncio.create_task(store.append("in-time", 0, [ev(3)], start_by=in_(60)))
            await asyncio.sleep(0.3)
            assert not late.done()
        with pytest.raises(StartByPassed, match="'late'"):
            await late
        await in_time
        assert await versions(store, "late") == []
        assert await versions(store, "held") == [1]
        assert await versions(store, "in-time") == [1]
        await store.append("late", 0, [ev(4)])  # the lock was let go: the next one goes in
        assert await versions(store, "late") == [1]
    finally:
        await store.close()
