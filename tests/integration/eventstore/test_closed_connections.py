"""A pooled PostgreSQL connection the server ended while it sat idle (`pg_terminate_backend`,
a restart, a failover) is replaced at checkout, not handed to a statement that then fails.

Seen while cutting PostgreSQL's connections under load: the agent-runner's next statement on
each such connection failed (`connection is closed`), answering `unavailable`, and a DAG step
that asked at that moment failed with its run."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore import (
    NewEvent,
    OutboxMessage,
    OutboxRelay,
    Outgoing,
    SqlEventStore,
    create_engine,
    is_unavailable,
)
from baton_eventstore.unavailable import StoreUnavailable

from ...database_locks import TableLock
from ...postgres_sessions import cut_after, end_backends, fail_first

pytestmark = pytest.mark.postgres


@pytest.fixture
async def engine(postgres_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(postgres_url, pool_size=1)  # one connection: the one cut is reused
    yield engine
    await engine.dispose()


async def cut_the_pooled_connection(engine: AsyncEngine, postgres_url: str) -> None:
    """End the pool's one connection from the server side, and wait until its client knows."""
    async with engine.connect() as conn:
        backend = await conn.scalar(text("SELECT pg_backend_pid()"))
        raw = await conn.get_raw_connection()
        driver: Any = raw.driver_connection
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", backend)
    finally:
        await admin.close()
    for _ in range(200):
        if driver.is_closed():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the client never saw its connection end")


async def test_a_statement_after_the_server_ended_the_pooled_connection_runs(
    engine: AsyncEngine, postgres_url: str
) -> None:
    await cut_the_pooled_connection(engine, postgres_url)
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT 1")) == 1


async def test_a_raw_connection_after_the_server_ended_it_is_a_live_one(
    engine: AsyncEngine, postgres_url: str
) -> None:
    await cut_the_pooled_connection(engine, postgres_url)
    pooled = await engine.raw_connection()  # the agent-runner's hot path takes these
    try:
        assert await pooled.driver_connection.fetchval("SELECT 1") == 1  # type: ignore[union-attr]
    finally:
        pooled.close()


async def test_a_raw_pool_connection_the_server_ends_mid_use_is_reported_as_unavailable(
    postgres_url: str,
) -> None:
    """The append pool's connection cut while in use: asyncpg has already handed it back to
    its pool, so terminating it again must not replace the outage with `InterfaceError:
    cannot call Connection.terminate(): connection has been released back to the pool` (seen
    in the relay's log under `pg_terminate_backend`), which names no outage."""
    from baton_eventstore.asyncpg_pool import LazyPool

    engine = create_engine(postgres_url, pool_size=1)
    pool = LazyPool(engine)
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        with pytest.raises(StoreUnavailable) as caught:
            async with pool.connection() as conn:
                backend = await conn.fetchval("SELECT pg_backend_pid()")
                statement = asyncio.ensure_future(conn.fetchval("SELECT pg_sleep(5)"))
                await asyncio.sleep(0.2)  # the statement is running when its session ends
                assert await admin.fetchval("SELECT pg_terminate_backend($1)", backend)
                await statement
        assert "released back to the pool" not in str(caught.value)
        async with pool.connection() as conn:  # the pool goes on with a new connection
            assert await conn.fetchval("SELECT 1") == 1
    finally:
        await admin.close()
        await pool.close()
        await engine.dispose()


async def test_reads_on_the_append_pool_after_the_server_ended_its_connections_succeed(
    postgres_url: str,
) -> None:
    """A restart or failover ends every session of the store's asyncpg pool, and the next
    statements come before asyncpg has read that (`InternalClientError: cannot switch to
    state 12 ...`, `connection was closed in the middle of operation`): each pooled
    connection failed one `load` with `unavailable` (a 503 of the workflow service). A read
    runs again on a new connection, and the pool's other old connections are expired."""
    from baton_eventstore import NewEvent, SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    assert store.appender is not None
    stream = f"closed-{uuid.uuid4()}"
    await store.append(stream, 0, [NewEvent(uuid.uuid4(), "test.happened", {})])
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    held = "SELECT pg_backend_pid() FROM pg_sleep(0.05)"  # both connections in use at once
    try:
        for _ in range(5):
            answers = await asyncio.gather(store.appender.fetch(held), store.appender.fetch(held))
            backends = [rows[0][0] for rows in answers]
            await end_backends(admin, backends)
            for _ in range(3):  # more than the pool holds
                assert [event.version for event in await store.load(stream)] == [1]
    finally:
        await admin.close()
        await store.close()


async def test_an_append_the_server_never_saw_is_written_on_a_new_connection(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """asyncpg sends nothing on a connection whose protocol is stuck after the server ended
    its session: the append goes again, once, and the log says what happened in plain words."""
    from baton_eventstore import NewEvent, SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    stream = f"closed-{uuid.uuid4()}"
    stuck = asyncpg.InternalClientError(
        "cannot switch to state 12; another operation (2) is in progress"
    )
    calls = fail_first(monkeypatch, "fetch", stuck)
    try:
        with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
            positions = await store.append(stream, 0, [NewEvent(uuid.uuid4(), "test.a", {})])
        assert len(positions) == 1 and len(calls) == 2
        assert "the database connection was lost (the server closed it); retried" in caplog.text
        monkeypatch.undo()
        assert [event.version for event in await store.load(stream)] == [1]
    finally:
        await store.close()


class RecordingPublisher:
    """Acknowledges every message, and keeps their msg ids in the order published."""

    def __init__(self) -> None:
        self.msg_ids: list[str] = []

    async def publish_all(
        self, messages: Sequence[Outgoing], acknowledged: Callable[[int], object]
    ) -> None:
        for index, message in enumerate(messages):
            self.msg_ids.append(message.msg_id)
            acknowledged(index)

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        return set()


def published(n: int) -> NewEvent:
    return NewEvent(uuid.uuid4(), "test.a", {"n": n}, publish=OutboxMessage(f"test.{n}", b"x"))


def cut_off() -> asyncpg.ConnectionDoesNotExistError:
    """What asyncpg raises when the server goes away while a statement is in flight."""
    return asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")


class Relayed(NamedTuple):
    """A store, its relay (started, so it takes what the store logs as committed) and what
    the relay published."""

    store: SqlEventStore
    publisher: RecordingPublisher
    relay: OutboxRelay


@pytest.fixture
async def relayed(postgres_url: str) -> AsyncIterator[Relayed]:
    """It publishes only when drained (one poll an hour)."""
    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    publisher = RecordingPublisher()
    relay = OutboxRelay(store, publisher, poll_interval=3600)
    relay.start()
    try:
        yield Relayed(store, publisher, relay)
    finally:
        await relay.stop()
        await store.close()


async def test_an_append_cut_off_after_it_committed_is_answered_as_committed(
    relayed: Relayed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server committed the append and went away before its answer came: before, it
    failed `unavailable` (a 503) though stored. Its events are found on a new connection,
    stored as it wrote them, and it is answered as committed; nothing is written twice, and
    its event is published once, though the relay published it (and deleted its outbox row)
    before the append's caller heard of it."""
    store, publisher, relay = relayed
    stream = f"closed-{uuid.uuid4()}"
    first, second = published(1), published(2)
    calls = cut_after(monkeypatch, "fetch", "INSERT INTO events", cut_off(), meanwhile=relay.drain)
    with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
        recorded = await store.append(stream, 0, [first])
    assert "the append had been committed: answered as committed" in caplog.text
    assert sum("INSERT INTO events" in query for query in calls) == 1  # not sent again
    assert publisher.msg_ids == [str(first.event_id)]  # before its caller heard of it
    monkeypatch.undo()
    loaded = await store.load(stream)
    assert [(e.event_id, e.version, e.position) for e in loaded] == [
        (first.event_id, 1, recorded[0].position)
    ]
    await store.append(stream, 1, [second])  # the stream goes on from it
    await relay.drain()
    assert publisher.msg_ids == [str(first.event_id), str(second.event_id)]


async def test_appends_written_together_cut_off_after_they_committed_each_succeed_once(
    relayed: Relayed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Appends that waited for a writer go in one statement (group commit); cut off after it
    committed, each is found stored as it wrote it and answered so, and published once."""
    store, publisher, relay = relayed
    assert store.appender is not None
    store.appender.writers = 1  # what waits for the one writer goes in one statement
    streams = [f"closed-{n}-{uuid.uuid4()}" for n in range(3)]
    events = [published(n) for n in range(3)]
    calls = cut_after(monkeypatch, "fetch", "WITH req AS", cut_off())
    recorded = await asyncio.gather(
        *(store.append(stream, 0, [event]) for stream, event in zip(streams, events, strict=True))
    )
    assert sum("WITH req AS" in query for query in calls) == 1  # one statement, cut
    assert sum("INSERT INTO events" in query for query in calls) == 1  # none sent again
    monkeypatch.undo()
    for stream, event, answer in zip(streams, events, recorded, strict=True):
        loaded = await store.load(stream)
        assert [(e.event_id, e.position) for e in loaded] == [(event.event_id, answer[0].position)]
    await relay.drain()
    assert sorted(publisher.msg_ids) == sorted(str(event.event_id) for event in events)


async def test_an_append_cut_off_before_it_committed_is_written_once_more(
    relayed: Relayed,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The connection was lost with the append sent and not committed: nothing of it is
    stored, so it is written once more, on a new connection, lands once and is published
    once (before, it failed `unavailable` and the caller had to try again)."""
    store, publisher, relay = relayed
    stream = f"closed-{uuid.uuid4()}"
    event = published(1)
    calls = fail_first(monkeypatch, "fetch", cut_off(), marker="INSERT INTO events")
    with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
        recorded = await store.append(stream, 0, [event])
    assert "nothing of the append was stored: written again" in caplog.text
    assert sum("INSERT INTO events" in query for query in calls) == 2
    monkeypatch.undo()
    assert [(e.event_id, e.version) for e in await store.load(stream)] == [(event.event_id, 1)]
    assert recorded[0].version == 1
    await relay.drain()
    assert publisher.msg_ids == [str(event.event_id)]


async def test_an_append_whose_session_the_server_ends_mid_statement_lands_once(
    relayed: Relayed, postgres_url: str
) -> None:
    """A real cut: the append waits on a lock when the server ends its session (as a restart
    or `pg_terminate_backend` does); it had not committed, so it is written again and lands
    once."""
    store, publisher, relay = relayed
    stream = f"closed-{uuid.uuid4()}"
    event = published(1)
    await store.load(stream)  # the pool is open, its connection idle
    lock = TableLock(postgres_url)
    # Not the lock's session: in its transaction pg_stat_activity would not change.
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))
    await lock.take()
    try:
        append = asyncio.ensure_future(store.append(stream, 0, [event]))
        waiting = (
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO events%'"
        )
        for _ in range(500):
            if pids := [row[0] for row in await admin.fetch(waiting)]:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the append never waited on the lock")
        await end_backends(admin, pids)
    finally:
        await lock.release()
        await admin.close()
    recorded = await append
    assert [(e.event_id, e.version) for e in await store.load(stream)] == [(event.event_id, 1)]
    assert recorded[0].version == 1
    await relay.drain()
    assert publisher.msg_ids == [str(event.event_id)]


async def test_an_append_that_commits_after_it_was_found_missing_is_answered_as_committed(
    relayed: Relayed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client saw its connection break while the server still ran the statement (a
    network cut, not a restart): the look-up finds nothing, the statement commits, and the
    append written again is refused by its own events. They are stored as it wrote them:
    answered as committed, stored and published once."""
    store, publisher, relay = relayed
    stream = f"closed-{uuid.uuid4()}"
    event = published(1)
    real = asyncpg.Connection.fetch
    sent: list[tuple[asyncpg.Connection, str, tuple[object, ...]]] = []

    async def late(self: asyncpg.Connection, query: str, *args: object) -> object:
        if "INSERT INTO events" in query and not sent:
            sent.append((self, query, args))
            raise cut_off()
        result = await real(self, query, *args)
        if "event_id = ANY" in query and len(sent) == 1:
            sent.append(sent[0])
            await real(self, sent[0][1], *sent[0][2])  # the cut statement commits now
        return result

    monkeypatch.setattr(asyncpg.Connection, "fetch", late)
    recorded = await store.append(stream, 0, [event])
    monkeypatch.undo()
    assert [(e.event_id, e.version) for e in await store.load(stream)] == [(event.event_id, 1)]
    assert recorded[0].version == 1
    await relay.drain()
    assert publisher.msg_ids == [str(event.event_id)]


async def test_an_append_cut_off_whose_ids_are_stored_otherwise_fails_saying_so(
    relayed: Relayed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its event ids are stored, but in another stream: it is neither answered as committed
    nor written again; it fails `unavailable` as before, saying what was found."""
    store = relayed.store
    stream = f"closed-{uuid.uuid4()}"
    event = published(1)
    real = asyncpg.Connection.fetch
    calls: list[str] = []

    async def elsewhere(self: asyncpg.Connection, query: str, *args: object) -> object:
        calls.append(query)
        if "INSERT INTO events" in query and query not in calls[:-1]:  # its first
            await real(self, query, "elsewhere", *args[1:])
            raise cut_off()
        return await real(self, query, *args)

    monkeypatch.setattr(asyncpg.Connection, "fetch", elsewhere)
    with pytest.raises(StoreUnavailable, match=r"stored, but not as this append wrote them") as e:
        await store.append(stream, 0, [event])
    assert "'elsewhere' v1" in str(e.value) and is_unavailable(e.value)
    assert sum("INSERT INTO events" in query for query in calls) == 1
    monkeypatch.undo()
    assert await store.load(stream) == []
    assert [x.event_id for x in await store.load("elsewhere")] == [event.event_id]


async def test_an_append_after_a_check_cut_off_at_its_commit_is_answered_as_committed(
    relayed: Relayed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append with a check before it in its transaction (a run's start under its owner's
    limit) whose COMMIT went through as the connection was lost: answered as committed,
    without running the check again (which its own run would now fail)."""
    store, publisher, relay = relayed
    assert store.appender is not None
    stream = f"closed-{uuid.uuid4()}"
    event = published(1)
    checks: list[int] = []

    async def room(conn: asyncpg.Connection) -> None:
        checks.append(1)
        if await conn.fetchval("SELECT count(*) FROM events WHERE stream_id = $1", stream):
            raise AssertionError("no room: the stream has an event")

    cut_after(monkeypatch, "execute", "COMMIT", cut_off())
    now = datetime.now(UTC)
    positions = await store.appender.append(stream, 0, [event], now, before=room)
    monkeypatch.undo()
    assert checks == [1]
    loaded = await store.load(stream)
    assert [(e.event_id, e.position) for e in loaded] == [(event.event_id, positions[0])]
    await relay.drain()
    assert publisher.msg_ids == [str(event.event_id)]


async def test_reads_on_the_engine_after_the_server_ended_its_connections_succeed(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The SQLAlchemy pool of the store's reads (the workflow's read models), cut as a restart
    cuts it: SQLAlchemy took only asyncpg's `is_closed()` for a lost connection, so one the
    server ended a moment ago (`InternalClientError: cannot switch to state 15 ...`) went
    back to the pool, and each pooled connection failed one read with `unavailable`. A read
    runs again on a new connection, the pool's old ones are dropped, and the log says so."""
    from baton_eventstore import SqlEventStore

    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    admin = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg", "postgresql"))

    async def backend_held_a_while() -> int:
        async with store.reader.connect() as conn:
            pid = await conn.scalar(text("SELECT pg_backend_pid()"))
            await asyncio.sleep(0.05)  # both pooled connections are in use at once
        return int(pid)

    try:
        with caplog.at_level("WARNING", logger="baton_eventstore.engine"):
            for _ in range(5):
                backends = list(
                    await asyncio.gather(backend_held_a_while(), backend_held_a_while())
                )
                await end_backends(admin, backends)
                for _ in range(3):  # more than the pool holds
                    pid = (await store.read(text("SELECT pg_backend_pid()"))).scalar()
                    assert pid not in backends
        assert "the database connection was lost (the server closed it); retried" in caplog.text
    finally:
        await admin.close()
        await store.close()
