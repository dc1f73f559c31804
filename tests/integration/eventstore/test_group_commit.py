"""PostgreSQL group commit: appends that wait are written together, each with its own outcome."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import JSON, Column, DateTime, Integer, MetaData, String, Table, select
from sqlalchemy.dialects.postgresql import JSONB

from baton_eventstore import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    OutboxMessage,
    RowConflict,
    RowWrite,
    SqlEventStore,
)
from baton_eventstore.asyncpg_append import AsyncpgAppender
from baton_eventstore.pg_batch import Append, batch_statement
from baton_eventstore.tables import outbox

pytestmark = pytest.mark.postgres

metadata = MetaData()
boxes = Table(
    "boxes",
    metadata,
    Column("box_id", String(64), primary_key=True),
    Column("label", String(16), nullable=False),
    Column("doc", JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
)
AT = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(postgres_url, pool_size=4, max_overflow=0)
    async with store.engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
    # One writer: everything that waits behind its first statement goes in its next one.
    appender(store).writers = 1
    yield store
    await store.close()


def appender(store: SqlEventStore) -> AsyncpgAppender:
    assert store.appender is not None
    return store.appender


def ev(n: int, publish: bool = True) -> NewEvent:
    message = OutboxMessage(f"test.evt.{n}", b"%d" % n, {"n": str(n)})
    return NewEvent(uuid.uuid4(), "test.happened", {"n": n}, publish=message if publish else None)


def box(box_id: str, version: int, label: str = "ok", **doc: Any) -> RowWrite:
    values = {"label": label, "doc": doc, "version": version, "changed_at": AT}
    return RowWrite(boxes, {"box_id": box_id}, values, create=version == 1)


async def outcomes(*appends: Awaitable[Any]) -> list[Any]:
    return list(await asyncio.gather(*appends, return_exceptions=True))


async def test_appends_that_wait_share_a_statement_and_keep_their_own_versions(
    store: SqlEventStore,
) -> None:
    await store.append("first", 0, [ev(0)])  # alone: nothing waited, no batch
    assert appender(store).batches == 0
    streams = [f"s-{n}" for n in range(60)]
    recorded = await asyncio.gather(
        *(store.append(s, 0, [ev(n), ev(n, publish=False)]) for n, s in enumerate(streams))
    )
    assert appender(store).batches >= 1
    for stream, events in zip(streams, recorded, strict=True):
        assert [e.version for e in events] == [1, 2]
        assert await store.load(stream) == events
    positions = [e.position for events in recorded for e in events]
    assert len(set(positions)) == len(positions)
    assert all(a.position < b.position for a, b in recorded)  # in the order of its events
    published = [r.event_id for r in await store.outbox.fetch(1000)]
    assert sorted(published[1:]) == sorted(events[0].event_id for events in recorded)


async def test_a_batch_is_written_in_stream_order(store: SqlEventStore) -> None:
    """Two replicas' batches sharing streams lock them in the same order: no deadlock."""
    await store.append("first", 0, [ev(0)])
    streams = ["s-c", "s-a", "s-d", "s-b"]
    recorded = await asyncio.gather(*(store.append(s, 0, [ev(n)]) for n, s in enumerate(streams)))
    assert appender(store).batches == 1
    by_position = sorted(zip(recorded, streams, strict=True), key=lambda pair: pair[0][0].position)
    assert [stream for _, stream in by_position] == sorted(streams)


async def test_read_rows_of_both_shapes_are_written_with_their_events(
    store: SqlEventStore,
) -> None:
    await outcomes(store.append("b-old", 0, [ev(0)], box("b-old", 1, doc={"n": 0})))
    results = await outcomes(
        store.append("b-new", 0, [ev(1)], box("b-new", 1, label="new", items=[1, "two"])),
        store.append("b-old", 1, [ev(2)], box("b-old", 2, label="moved", n=2)),
        store.append("plain", 0, [ev(3)]),
    )
    assert not [r for r in results if isinstance(r, BaseException)]
    assert appender(store).batches == 1
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(boxes).order_by(boxes.c.box_id))).all()
    assert [(r.box_id, r.label, r.doc, r.version, r.changed_at) for r in rows] == [
        ("b-new", "new", {"items": [1, "two"]}, 1, AT),
        ("b-old", "moved", {"n": 2}, 2, AT),
    ]


async def test_a_stream_behind_its_expected_version_is_refused_and_the_others_written(
    store: SqlEventStore,
) -> None:
    await store.append("ahead", 0, [ev(0)])
    results = await outcomes(
        store.append("a", 0, [ev(1)], box("a", 1)),
        store.append("ahead", 5, [ev(2)], box("ahead", 6)),  # the guard refuses it
        store.append("b", 0, [ev(3)]),
    )
    assert appender(store).batches == 1
    conflict = results[1]
    assert isinstance(conflict, ConcurrencyConflict)
    assert (conflict.expected_version, conflict.actual_version) == (5, 1)
    assert [e.version for e in await store.load("ahead")] == [1]
    assert [e.version for e in await store.load("a")] == [1]
    assert [e.version for e in await store.load("b")] == [1]
    async with store.engine.connect() as conn:
        assert [r.box_id for r in await conn.execute(select(boxes))] == ["a"]


async def test_a_unique_key_violation_fails_only_its_own_append(store: SqlEventStore) -> None:
    taken = ev(0, publish=False)
    await store.append("stale", 0, [taken])
    await store.append("stale", 1, [ev(1)])
    await store.append("boxed", 0, [ev(2)], box("dup-box", 1))
    results = await outcomes(
        store.append("ok-1", 0, [ev(3)], box("ok-1", 1)),
        store.append("stale", 1, [ev(4)]),  # behind: version 2 is taken
        store.append("dup-id", 0, [ev(5), taken]),  # an event id already stored
        store.append("dup-row", 0, [ev(6)], box("dup-box", 1)),  # the row's key is taken
        store.append("ok-2", 0, [ev(7)]),
    )
    assert isinstance(results[0], list) and isinstance(results[4], list)
    assert isinstance(results[1], ConcurrencyConflict) and results[1].actual_version == 2
    assert isinstance(results[2], DuplicateEventId)
    assert isinstance(results[3], RowConflict) and results[3].table == "boxes"
    for refused in ("dup-id", "dup-row"):
        assert await store.load(refused) == []
    assert [e.version for e in await store.load("stale")] == [1, 2]
    assert [e.version for e in await store.load("ok-1")] == [1]
    assert [e.version for e in await store.load("ok-2")] == [1]
    subjects = [r.subject for r in await store.outbox.fetch(100)]
    assert subjects == ["test.evt.1", "test.evt.2", "test.evt.3", "test.evt.7"]


async def test_a_read_row_json_cannot_hold_fails_only_its_own_append(
    store: SqlEventStore,
) -> None:
    # Its statement was built for the whole batch, outside the fallback that writes each
    # append alone: its TypeError failed every append beside it (found by a review).
    await store.append("first", 0, [ev(0)])
    results = await outcomes(
        store.append("a", 0, [ev(1)], box("a", 1)),
        store.append("bad", 0, [ev(2)], box("bad", 1, at=AT)),  # a datetime in the JSON
        store.append("c", 0, [ev(3)]),
    )
    assert isinstance(results[1], TypeError)
    assert isinstance(results[0], list) and isinstance(results[2], list), results
    assert await store.load("bad") == []


async def test_a_streams_appends_are_written_in_the_order_they_were_called(
    store: SqlEventStore,
) -> None:
    appender(store).writers = 3
    results = await outcomes(*(store.append("one", n, [ev(n)]) for n in range(5)))
    assert not [r for r in results if isinstance(r, BaseException)]
    assert [e.payload["n"] for e in await store.load("one")] == [0, 1, 2, 3, 4]
    racing = await outcomes(store.append("two", 0, [ev(1)]), store.append("two", 0, [ev(2)]))
    assert isinstance(racing[0], list) and isinstance(racing[1], ConcurrencyConflict)


async def test_an_append_whose_caller_gave_up_while_it_waited_is_not_written(
    store: SqlEventStore,
) -> None:
    first = asyncio.create_task(store.append("kept", 0, [ev(1)]))
    dropped = asyncio.create_task(store.append("dropped", 0, [ev(2)]))
    await asyncio.sleep(0)  # both are queued; the writer has not taken them yet
    dropped.cancel()
    await first
    with pytest.raises(asyncio.CancelledError):
        await dropped
    assert await store.load("dropped") == []
    assert [e.version for e in await store.load("kept")] == [1]


async def test_close_lets_queued_appends_finish(store: SqlEventStore) -> None:
    tasks = [asyncio.create_task(store.append(f"c-{n}", 0, [ev(n)])) for n in range(20)]
    await asyncio.sleep(0)
    await store.close()
    assert [len(await task) for task in tasks] == [1] * 20
    assert len(await store.read_all()) == 20


def test_writers_and_batch_size_must_be_positive(store: SqlEventStore) -> None:
    with pytest.raises(ValueError, match="writers: must be >= 1, got 0"):
        AsyncpgAppender(store.engine, writers=0)
    with pytest.raises(ValueError, match="max_batch: must be >= 1, got 0"):
        AsyncpgAppender(store.engine, max_batch=0)


async def test_plans_made_while_the_tables_are_small_stay_on_the_indexes(
    store: SqlEventStore,
) -> None:
    """A young database: the planner sees tiny tables and would scan them, and a prepared
    statement keeps that plan while the tables grow. The append pool's plans use the indexes."""
    await store.append("young", 0, [ev(0)], box("young", 1))
    async with store.engine.begin() as conn:
        await conn.exec_driver_sql("ANALYZE events")
        await conn.exec_driver_sql("ANALYZE boxes")
    appends = [
        Append("young", 1, [ev(1)], AT, box("young", 2)),
        Append("new", 0, [ev(2)], AT, box("new", 1)),
    ]
    sql, params = batch_statement(appends)
    plan = "\n".join(row[0] for row in await appender(store).fetch(f"EXPLAIN {sql}", *params))
    assert "Seq Scan" not in plan and "hashed SubPlan" not in plan, plan
    assert "Index Only Scan using uq_events_stream_version" in plan
    assert "Index Scan using boxes_pkey" in plan


async def test_committed_appends_reach_the_log_with_the_outbox_rows_written(
    store: SqlEventStore,
) -> None:
    log = store.outbox.committed
    assert log is not None
    log.listen()
    alone = [ev(1), ev(2, publish=False), ev(3)]
    await store.append("alone", 0, alone)  # a statement of its own
    together = [[ev(10 + n)] for n in range(20)]
    await asyncio.gather(*(store.append(f"b{n}", 0, e) for n, e in enumerate(together)))
    with pytest.raises(ConcurrencyConflict):
        await store.append("alone", 0, [ev(4)])  # refused: not logged
    assert appender(store).batches >= 1
    entries = log.take()
    assert {e.stream_id for e in entries} == {"alone"} | {f"b{n}" for n in range(20)}
    first = next(e for e in entries if e.stream_id == "alone")
    assert (first.expected_version, first.version) == (0, 3)
    assert [row.event_id for row in first.rows] == [alone[0].event_id, alone[2].event_id]
    async with store.engine.connect() as conn:
        stored = {
            r.id: (r.event_id, r.subject, bytes(r.body), dict(r.headers))
            for r in await conn.execute(select(outbox))
        }
    logged = {r.id: (r.event_id, r.subject, r.body, r.headers) for e in entries for r in e.rows}
    assert logged == stored
