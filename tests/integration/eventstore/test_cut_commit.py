"""A PostgreSQL connection cut at an append's commit, over a real socket (`CuttingProxy`):
either the commit took effect and its answer was lost, or it never reached the server. The
log then holds the append exactly once or not at all (no half of it, no gap in versions), the
read row agrees with the log, the outbox holds the rows of the committed events only, and the
relay publishes each committed event once.

On the store's asyncpg appender (alone, in a group-commit batch, or after `before` in a
transaction of its own) the cut append is looked up on a new connection and answered as
committed, or written once more: its caller sees no error. When the server is gone as well,
the look-up cannot tell, and the append fails `StoreUnavailable` within `LOOKUP_PATIENCE`
(not a hang); once the server is back, the same append sent again is recorded once, refused
as a conflict when the first had taken effect. A unit of work (SQLAlchemy) cut so fails
`unavailable`, not `nothing_written`: whether it committed is the caller's to find out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest
from nats.js import JetStreamContext
from sqlalchemy import Column, Integer, MetaData, String, Table, select

from baton_eventstore import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    OutboxRelay,
    RowWrite,
    SqlEventStore,
    is_unavailable,
    nothing_written,
)
from baton_eventstore.asyncpg_recovery import LOOKUP_PATIENCE
from baton_eventstore.tables import outbox
from baton_eventstore.unavailable import CONNECTION_LOST_SAYS, StoreUnavailable
from baton_messaging.publisher import JetStreamPublisher

from ...cutting_proxy import FATES, CuttingProxy
from .conftest import TestStream

pytestmark = pytest.mark.postgres

BOUND = LOOKUP_PATIENCE + 10.0  # only stops the test hanging
WAYS = ["alone", "batch", "after"]
"""How the appender writes an append: alone in one statement (implicit transaction, its
commit the protocol's Sync), with others in one statement, or after `before` in a transaction
of its own (its commit a COMMIT)."""
BATCH_MARKER = "JOIN ok ON ok.idx"
"""Only a group-commit batch's statement holds this (`pg_batch`)."""

REFUSED = (ConcurrencyConflict, DuplicateEventId)
"""What the same append sent again after its first committed is refused with (which unique
key PostgreSQL checks first decides), nothing written."""

heads = Table(
    "cut_heads",
    MetaData(),
    Column("stream_id", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
)


@pytest.fixture
async def proxy(postgres_url: str) -> AsyncIterator[CuttingProxy]:
    async with CuttingProxy(postgres_url).running() as proxy:
        yield proxy


@pytest.fixture
async def store(proxy: CuttingProxy) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(proxy.proxied_url)
    async with store.engine.begin() as conn:
        await conn.run_sync(heads.metadata.create_all)
    yield store
    await store.close()


def head(stream_id: str, version: int) -> RowWrite:
    """The read row of a stream: its version, written with its events."""
    return RowWrite(heads, {"stream_id": stream_id}, {"version": version}, create=version == 1)


async def _locked(conn: asyncpg.Connection) -> None:
    await conn.execute("SELECT pg_advisory_xact_lock(7)")


async def second_appends(way: str, store: SqlEventStore, appends: dict[str, NewEvent]) -> list[Any]:
    """Each stream's second event appended `way`; each append's positions, or its error."""
    assert store.appender is not None
    appender = store.appender

    async def append(stream_id: str, event: NewEvent) -> list[int]:
        if way == "after":
            now, row = datetime.now(UTC), head(stream_id, 2)
            return await appender.append(stream_id, 1, [event], now, row, before=_locked)
        return [e.position for e in await store.append(stream_id, 1, [event], head(stream_id, 2))]

    calls = [append(stream_id, event) for stream_id, event in appends.items()]
    return await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), BOUND)


def cut_at_commit(
    proxy: CuttingProxy, way: str, *, delivered: bool, going_down: bool, reset: bool = True
) -> None:
    """The next commit of `way`'s statement cut: a batch's only when it is one (its SQL)."""
    marker = BATCH_MARKER if way == "batch" else "INSERT INTO events"
    proxy.cut_at_commit(marker, delivered=delivered, going_down=going_down, reset=reset)


def cut_where(way: str) -> str:
    """The message that commits `way`'s statement."""
    return "COMMIT" if way == "after" else "Sync"


async def first_events(
    store: SqlEventStore, stream: TestStream, way: str
) -> tuple[dict[str, NewEvent], dict[str, NewEvent]]:
    """Each stream's first event, appended uncut, and the second each is to get."""
    assert store.appender is not None
    names = ["b1", "b2", "b3"] if way == "batch" else ["s1"]
    store.appender.writers = 1  # appends made together wait for the one writer: one batch
    first = {name: stream.event(1, name) for name in names}
    for name, event in first.items():
        await store.append(name, 0, [event], head(name, 1))
    return first, {name: stream.event(2, name) for name in names}


async def recorded(store: SqlEventStore, stream_id: str) -> list[str]:
    """The stream's event ids in version order, checked to hold versions 1..n without a gap,
    and its read row to agree with the log."""
    events = await store.load(stream_id)
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    row = (await store.read(select(heads.c.version).where(heads.c.stream_id == stream_id))).all()
    assert [version for (version,) in row] == ([len(events)] if events else [])
    return [str(e.event_id) for e in events]


async def outbox_ids(store: SqlEventStore) -> list[str]:
    rows = await store.read(select(outbox.c.event_id).order_by(outbox.c.id))
    return [str(event_id) for (event_id,) in rows]


async def published(store: SqlEventStore, js: JetStreamContext, stream: TestStream) -> list[str]:
    """What a relay, started now, publishes of the outbox; JetStream's message ids."""
    relay = OutboxRelay(store, JetStreamPublisher(js), poll_interval=0.05)
    relay.start()
    await relay.drain()
    await relay.stop()
    assert await store.outbox.count() == 0
    return await stream.msg_ids()


@pytest.mark.parametrize("reset", [True, False], ids=["reset", "closed"])
@pytest.mark.parametrize("delivered", FATES)
@pytest.mark.parametrize("way", WAYS)
async def test_an_append_cut_at_its_commit_is_answered_and_recorded_once(
    store: SqlEventStore,
    proxy: CuttingProxy,
    stream: TestStream,
    js: JetStreamContext,
    way: str,
    delivered: bool,
    reset: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, second = await first_events(store, stream, way)
    cut_at_commit(proxy, way, delivered=delivered, going_down=False, reset=reset)
    with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
        outcomes = await second_appends(way, store, second)
    assert (proxy.cuts, proxy.cut_on) == (1, cut_where(way))
    said = "answered as committed" if delivered else "written again"
    assert caplog.text.count(said) == len(second), caplog.text
    positions = [p for outcome in outcomes for p in outcome]
    for name in first:
        ids = [str(first[name].event_id), str(second[name].event_id)]
        assert await recorded(store, name) == ids
    loaded = [e.position for name in second for e in await store.load(name) if e.version == 2]
    assert positions == loaded
    committed = [str(e.event_id) for e in [*first.values(), *second.values()]]
    assert sorted(await outbox_ids(store)) == sorted(committed)
    # The caller sent it again anyway (it timed out, say): refused, nothing doubles.
    again = await second_appends(way, store, second)
    assert all(isinstance(outcome, REFUSED) for outcome in again), again
    for name in first:
        assert len(await recorded(store, name)) == 2
    assert sorted(await published(store, js, stream)) == sorted(committed)


@pytest.mark.parametrize("delivered", FATES)
@pytest.mark.parametrize("way", WAYS)
async def test_an_append_cut_as_the_server_goes_away_fails_unavailable_and_counts_once(
    store: SqlEventStore,
    proxy: CuttingProxy,
    stream: TestStream,
    js: JetStreamContext,
    way: str,
    delivered: bool,
) -> None:
    first, second = await first_events(store, stream, way)
    cut_at_commit(proxy, way, delivered=delivered, going_down=True)
    started = time.monotonic()
    outcomes = await second_appends(way, store, second)
    assert (proxy.cuts, proxy.cut_on) == (1, cut_where(way))
    assert time.monotonic() - started < LOOKUP_PATIENCE + 2.0  # told at once, not held
    for outcome in outcomes:
        assert isinstance(outcome, StoreUnavailable), outcome
        # Not "refused, nothing written" for the look-up's refused connection: the cut
        # append may have committed (it did, when its commit took effect).
        assert not nothing_written(outcome), outcome
        assert is_unavailable(outcome) and CONNECTION_LOST_SAYS in str(outcome), outcome
    await proxy.come_back()
    committed = [str(e.event_id) for e in first.values()]
    for name in first:
        ids = [str(first[name].event_id)] + ([str(second[name].event_id)] if delivered else [])
        assert await recorded(store, name) == ids
        committed += ids[1:]
    assert sorted(await outbox_ids(store)) == sorted(committed)
    # The caller sends the same append again: recorded once, whichever way the cut went.
    again = await second_appends(way, store, second)
    for outcome in again:
        assert isinstance(outcome, REFUSED if delivered else list), outcome
    for name in first:
        ids = [str(first[name].event_id), str(second[name].event_id)]
        assert await recorded(store, name) == ids
    everything = [str(e.event_id) for e in [*first.values(), *second.values()]]
    assert sorted(await published(store, js, stream)) == sorted(everything)


@pytest.mark.parametrize("delivered", FATES)
async def test_a_unit_of_work_cut_at_its_commit_fails_unavailable_and_counts_once(
    store: SqlEventStore,
    proxy: CuttingProxy,
    stream: TestStream,
    js: JetStreamContext,
    delivered: bool,
) -> None:
    first, second = stream.event(1, "u"), stream.event(2, "u")
    await store.append("u", 0, [first], head("u", 1))

    async def unit_of_work() -> None:
        async with store.transaction() as tx:
            await tx.append("u", 1, [second])
            await tx.write_row(head("u", 2))

    proxy.cut_at_commit(delivered=delivered)
    with pytest.raises(Exception) as failed:
        await asyncio.wait_for(unit_of_work(), BOUND)
    assert (proxy.cuts, proxy.cut_on) == (1, "COMMIT")
    assert is_unavailable(failed.value) and not nothing_written(failed.value), failed.value
    ids = [str(first.event_id)] + ([str(second.event_id)] if delivered else [])
    assert await recorded(store, "u") == ids
    assert await outbox_ids(store) == ids
    if delivered:
        with pytest.raises(REFUSED):
            await unit_of_work()
    else:
        await unit_of_work()
    everything = [str(first.event_id), str(second.event_id)]
    assert await recorded(store, "u") == everything
    assert await published(store, js, stream) == everything
