"""PostgreSQL stand-alone appends run on the store's own asyncpg pool: errors, pool lifecycle."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from baton_eventstore import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    OutboxMessage,
    SqlEventStore,
    StoreUnavailable,
    create_engine,
    is_unavailable,
)

from ...postgres_sessions import kill_other_sessions, stick_protocol

pytestmark = pytest.mark.postgres


def ev(n: int, publish: bool = True) -> NewEvent:
    message = OutboxMessage(f"test.evt.{n}", b"%d" % n, {"traceparent": "00-ab-cd-01"})
    return NewEvent(
        uuid.uuid4(),
        "test.happened",
        {"n": n, "text": "naïve ☃"},
        {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
        publish=message if publish else None,
    )


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(postgres_url, pool_size=3, max_overflow=0)
    yield store
    await store.close()


async def connections(postgres_url: str) -> int:
    """Other client connections to the test database (not counting the one asking)."""
    probe = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        query = (
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return int(await probe.fetchval(query))
    finally:
        await probe.close()


async def test_append_runs_on_the_append_pool_and_round_trips(store: SqlEventStore) -> None:
    assert store.appender is not None and not store.appender.is_open
    events = [ev(1), ev(2, publish=False)]
    recorded = await store.append("s", 0, events)
    assert store.appender.is_open
    assert await store.load("s") == recorded
    assert [(e.version, e.payload, e.metadata) for e in recorded] == [
        (1, events[0].payload, events[0].metadata),
        (2, events[1].payload, events[1].metadata),
    ]
    rows = await store.outbox.fetch(10)
    assert [(r.event_id, r.subject, r.headers) for r in rows] == [
        (events[0].event_id, "test.evt.1", {"traceparent": "00-ab-cd-01"})
    ]


async def test_conflict_names_the_actual_version_and_writes_nothing(store: SqlEventStore) -> None:
    await store.append("s", 0, [ev(1, publish=False)])
    await store.append("s", 1, [ev(2, publish=False)])
    for expected in (0, 1, 5):  # two behind (unique key), one behind, ahead (guard)
        with pytest.raises(ConcurrencyConflict) as info:
            await store.append("s", expected, [ev(9)])
        assert (info.value.expected_version, info.value.actual_version) == (expected, 2)
    assert [e.version for e in await store.load("s")] == [1, 2]
    assert await store.outbox.fetch(10) == []


async def test_duplicate_event_id_is_refused_with_nothing_written(store: SqlEventStore) -> None:
    stored = ev(1, publish=False)
    await store.append("a", 0, [stored])
    with pytest.raises(DuplicateEventId, match="events: an event id is already stored"):
        await store.append("b", 0, [ev(2), stored])
    assert await store.load("b") == []
    assert await store.outbox.fetch(10) == []


async def test_stand_alone_and_unit_of_work_appends_share_one_log(store: SqlEventStore) -> None:
    async with store.transaction() as tx:
        await tx.append("s", 0, [ev(1)])
    await store.append("s", 1, [ev(2)])
    with pytest.raises(ConcurrencyConflict):
        async with store.transaction() as tx:
            await tx.append("s", 1, [ev(3)])
    assert [e.version for e in await store.load("s")] == [1, 2]
    assert [r.subject for r in await store.outbox.fetch(10)] == ["test.evt.1", "test.evt.2"]


async def test_first_appends_at_once_open_one_pool_within_the_limit(
    store: SqlEventStore, postgres_url: str
) -> None:
    await asyncio.gather(*(store.append(f"s-{n}", 0, [ev(n)]) for n in range(20)))
    assert len(await store.read_all()) == 20
    # pool_size=3: at most 3 append connections, plus the engine's one from migrating.
    assert await connections(postgres_url) <= 4


async def test_close_ends_every_connection_and_a_later_append_reopens(
    store: SqlEventStore, postgres_url: str
) -> None:
    await store.append("s", 0, [ev(1)])
    assert await connections(postgres_url) >= 1
    await store.close()
    assert store.appender is not None and not store.appender.is_open
    left = await connections(postgres_url)
    for _ in range(50):  # a backend may linger a moment after its client said goodbye
        if left == 0:
            break
        await asyncio.sleep(0.1)
        left = await connections(postgres_url)
    assert left == 0
    await store.append("s", 1, [ev(2)])
    assert [e.version for e in await store.load("s")] == [1, 2]


async def test_sessions_the_server_ended_are_unavailable_then_replaced(
    store: SqlEventStore, postgres_url: str
) -> None:
    """A PostgreSQL restart under a warm pool: `StoreUnavailable` (never a raw asyncpg error)
    at most once per pooled connection, then appends work again and nothing was half-written."""
    await asyncio.gather(*(store.append(f"warm-{n}", 0, [ev(n)]) for n in range(3)))
    await kill_other_sessions(postgres_url)
    version, failures = 0, 0
    for n in range(10):
        try:
            await store.append("s", version, [ev(n)])
            version += 1
        except StoreUnavailable:
            failures += 1
    assert failures <= 3  # pool_size=3: each dead connection fails once and is let go
    assert version == 10 - failures
    # The engine's own pooled connection (reads) died too: it is replaced as it is checked
    # out once asyncpg has seen it end (the engine's checkout check); before, one read fails,
    # recognisably.
    try:
        await store.load("s")
    except Exception as exc:
        assert is_unavailable(exc)
    stored = await store.load("s")
    assert [e.version for e in stored] == list(range(1, version + 1))
    assert len(await store.outbox.fetch(100)) == 3 + version  # one outbox row per event


async def test_a_connection_whose_protocol_is_stuck_is_closed_not_pooled(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a session the server ended while it sat idle in the pool does to asyncpg."""
    await store.append("s", 0, [ev(1)])
    stuck = stick_protocol(monkeypatch, "fetch")
    with pytest.raises(StoreUnavailable, match="InternalClientError"):
        await store.append("s", 1, [ev(2)])
    monkeypatch.undo()
    assert stuck and stuck[0].is_closed()
    await store.append("s", 1, [ev(2)])
    assert [e.version for e in await store.load("s")] == [1, 2]


async def test_an_unreachable_server_is_unavailable(postgres_url: str) -> None:
    authority = postgres_url.split("://", 1)[1].split("/", 1)[0].rpartition("@")[2]
    dead = SqlEventStore(create_engine(postgres_url.replace(authority, "127.0.0.1:1", 1)))
    try:  # nothing listens on port 1
        with pytest.raises(StoreUnavailable, match="PostgreSQL: ConnectionRefusedError"):
            await dead.append("s", 0, [ev(1)])
    finally:
        await dead.close()


async def test_a_server_error_wrapped_by_sqlalchemy_is_recognised(store: SqlEventStore) -> None:
    """SQLAlchemy wraps asyncpg's error twice (its own class, then the dialect's adapted one)."""
    async with store.engine.connect() as conn:
        await conn.exec_driver_sql("SET statement_timeout = 10")
        with pytest.raises(Exception, match="statement timeout") as cancelled:
            await conn.exec_driver_sql("SELECT pg_sleep(1)")
    async with store.engine.connect() as conn:
        with pytest.raises(Exception, match="no_such_table") as missing:
            await conn.exec_driver_sql("SELECT * FROM no_such_table")
    assert is_unavailable(cancelled.value)  # the server cancelled it: try again later
    assert not is_unavailable(missing.value)  # a fault of the statement
