"""The relay publishing what this process committed without reading it back, in stream order."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from baton_eventstore import InMemoryEventStore, NewEvent, OutboxMessage, OutboxRelay
from baton_eventstore.committed import CommittedLog
from baton_eventstore.model import OutboxRow

from .test_relay_unit import FakePublisher, ev


class Fetches:
    """Counts the outbox's fetches; `before` runs inside a fetch, ahead of its read."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self.count = 0
        self.before: Callable[[], Awaitable[None]] | None = None
        self._fetch = store.outbox.fetch
        store.outbox.fetch = self  # type: ignore[method-assign]

    async def __call__(self, limit: int, exclude: Sequence[int] = ()) -> list[OutboxRow]:
        self.count += 1
        before, self.before = self.before, None
        if before is not None:
            await before()
        return await self._fetch(limit, exclude)


def listening(poll_interval: float = 3600) -> tuple[InMemoryEventStore, FakePublisher, Any]:
    """A store whose log records (as a started relay makes it), a publisher, and the relay."""
    store, publisher = InMemoryEventStore(), FakePublisher()
    relay = OutboxRelay(store, publisher, poll_interval=poll_interval)
    store.outbox.committed.listen()
    return store, publisher, relay


def sent(publisher: FakePublisher) -> list[str]:
    return [msg_id for _, _, msg_id, _ in publisher.sent]


def ids(*events: NewEvent) -> list[str]:
    return [str(e.event_id) for e in events]


async def test_committed_appends_are_published_without_a_fetch() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    assert await relay.publish_batch() == 0  # the first batch always reads the table
    a1, b1, a2 = ev(1, "a"), ev(2, "b"), ev(3, "a")
    await store.append("a", 0, [a1])
    await store.append("b", 0, [b1])
    await store.append("a", 1, [a2])
    assert await relay.publish_batch() == 3
    assert fetches.count == 1
    assert sent(publisher) == ids(a1, b1, a2)
    await relay.drain()  # the last, empty batch reads the table and deletes what was sent
    assert await store.outbox.count() == 0


async def test_a_stream_with_rows_the_log_lacks_is_fetched_in_commit_order() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    await relay.publish_batch()
    log = store.outbox.committed
    log.stop_listening()
    first = ev(1)
    await store.append("s", 0, [first])  # written while nothing listened: not in the log
    log.listen()
    second = ev(2)
    await store.append("s", 1, [second])
    assert await relay.publish_batch() == 2
    assert fetches.count == 2
    assert sent(publisher) == ids(first, second)


async def test_a_fetch_teaches_the_relay_how_far_a_stream_is_published() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    await relay.publish_batch()
    store.outbox.committed.stop_listening()
    first = ev(1)
    await store.append("s", 0, [first])
    store.outbox.committed.listen()
    second, third = ev(2), ev(3)
    await store.append("s", 1, [second])
    await relay.publish_batch()  # fetched: the log could not vouch for "s"
    await store.append("s", 2, [third])
    assert await relay.publish_batch() == 1
    assert fetches.count == 2  # the fetch published `second` after `first`: "s" is known now
    assert sent(publisher) == ids(first, second, third)


async def test_a_row_both_fetched_and_logged_is_published_once() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    during = ev(1)

    async def commit_during_the_fetch() -> None:  # after the batch took the log, before the read
        await store.append("s", 0, [during])

    fetches.before = commit_during_the_fetch
    assert await relay.publish_batch() == 1
    later = ev(2)
    await store.append("s", 1, [later])
    assert await relay.publish_batch() == 1
    assert fetches.count == 1  # `later` came from the log: the fetch of `during` moved "s"
    assert sent(publisher) == ids(during, later)


async def test_appends_that_publish_nothing_keep_the_stream_continuous() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    await relay.publish_batch()
    first, last = ev(1), ev(3)
    await store.append("s", 0, [first])
    assert await relay.publish_batch() == 1
    await store.append("s", 1, [NewEvent(uuid.uuid4(), "internal", {})])
    assert await relay.publish_batch() == 0  # nothing to publish: it reads the table to be sure
    await store.append("s", 2, [last])
    assert await relay.publish_batch() == 1
    assert fetches.count == 2  # `last` came from the log: the quiet append kept "s" known
    assert sent(publisher) == ids(first, last)


async def test_an_append_that_publishes_nothing_waits_for_its_stream_before_it() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    await relay.publish_batch()
    first, last = ev(1), ev(3)
    await store.append("s", 0, [first])
    await store.append("s", 1, [NewEvent(uuid.uuid4(), "internal", {})])
    await store.append("s", 2, [last])
    assert await relay.publish_batch() == 2
    assert fetches.count == 1
    assert sent(publisher) == ids(first, last)


async def test_a_full_log_drops_its_oldest_and_the_relay_fetches_them() -> None:
    store, publisher, relay = listening()
    store._state.committed = CommittedLog(capacity=2)
    store.outbox.committed.listen()
    fetches = Fetches(store)
    await relay.publish_batch()
    events = [ev(n) for n in range(3)]
    for version, event in enumerate(events):
        await store.append("s", version, [event])
    assert await relay.publish_batch() == 3
    assert fetches.count == 2
    assert sent(publisher) == ids(*events)


async def test_without_the_lease_the_log_is_dropped_and_the_holder_publishes() -> None:
    store, publisher, relay = listening()
    holder = FakePublisher()
    other = OutboxRelay(store, holder, poll_interval=3600)
    await other.publish_batch()  # takes the lease
    event = ev(1)
    await store.append("s", 0, [event])
    assert await relay.publish_batch() is None
    assert store.outbox.committed.waiting == 0
    assert await other.publish_batch() == 1
    assert (sent(holder), publisher.sent) == (ids(event), [])


async def test_after_a_failed_batch_the_relay_reads_the_table_again() -> None:
    store, publisher, relay = listening()
    fetches = Fetches(store)
    await relay.publish_batch()
    events = [ev(1), ev(2)]
    await store.append("s", 0, events)
    publisher.fail = 1
    with pytest.raises(ConnectionError):
        await relay.publish_batch()
    assert await relay.publish_batch() == 1  # one row at a time, read back
    assert fetches.count == 2
    await relay.drain()
    assert sent(publisher) == ids(*events)


async def test_rows_nobody_logged_are_fetched_while_the_log_keeps_flowing() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    # Every wake is a kick that finds a new append: only the poll interval makes it fetch.
    relay = OutboxRelay(store, publisher, poll_interval=0.05, delete_interval=60)
    relay.start()
    theirs = OutboxRow(10_000, uuid.uuid4(), "x.theirs", b"t", {})  # another process's row
    for version in range(25):
        await store.append("mine", version, [ev(version, "mine")])
        if version == 10:  # by now "mine" goes from the log alone
            store._state.outbox.append(theirs)
        relay.kick()
        await asyncio.sleep(0.01)
    published = sent(publisher)
    await relay.stop()
    assert str(theirs.event_id) in published


def test_the_log_records_only_while_a_relay_listens_and_only_known_rows() -> None:
    log = CommittedLog(capacity=10)
    published = NewEvent(uuid.uuid4(), "t", {}, publish=OutboxMessage("x.s", b"1"))
    quiet = NewEvent(uuid.uuid4(), "t", {})
    log.add("s", 0, [published], [7])
    assert log.waiting == 0
    log.listen()
    log.add("s", 0, [quiet, published], [None, 7])
    log.add("s", 2, [published], [None])  # a published event without its row id: left out
    [entry] = log.take()
    assert (entry.stream_id, entry.expected_version, entry.version) == ("s", 0, 2)
    assert [(row.id, row.subject, row.body) for row in entry.rows] == [(7, "x.s", b"1")]
    log.add("s", 2, [quiet], [None])
    log.stop_listening()
    assert log.waiting == 0
    with pytest.raises(ValueError, match="capacity"):
        CommittedLog(capacity=0)


def test_bad_max_heads_is_refused() -> None:
    with pytest.raises(ValueError, match="max_heads"):
        OutboxRelay(InMemoryEventStore(), FakePublisher(), max_heads=0)


async def test_an_append_a_fetch_published_across_a_delete_leaves_the_log_path_open() -> None:
    # A fetch ended inside an append, and the published ids were deleted (and forgotten)
    # before the next fetch published the rest: the append waited for ids it would never see
    # again, and from then on every batch fetched (found by a review of the event store).
    store = InMemoryEventStore()
    await store.append("s", 0, [NewEvent(uuid.uuid4(), "t", {})])  # before the relay: head unknown
    publisher = FakePublisher()
    relay = OutboxRelay(store, publisher, poll_interval=3600, batch_size=2, max_undeleted=1)
    store.outbox.committed.listen()
    fetches = Fetches(store)
    assert await relay.publish_batch() == 0  # takes the lease
    three = [ev(n) for n in range(3)]
    await store.append("s", 1, three)
    assert await relay.publish_batch() == 2  # fetched (the head of "s" is unknown): ends inside
    assert await relay.publish_batch() == 1  # deletes the two, then fetches the third
    assert fetches.count == 3
    later = ev(4)
    await store.append("s", 4, [later])
    assert await relay.publish_batch() == 1
    assert fetches.count == 3  # from the log: the stream is known to be published up to 4
    assert sent(publisher) == ids(*three, later)


async def test_appends_taken_from_the_log_stay_within_its_capacity_while_nats_is_away() -> None:
    # Every failed batch moved the log into the relay's pending appends, which grew without
    # bound while NATS was away (20,000 appends held about 20 MB), and settling them took
    # longer with every batch.
    store, publisher = InMemoryEventStore(), FakePublisher()
    store._state.committed = CommittedLog(capacity=8)
    relay = OutboxRelay(store, publisher, poll_interval=3600)
    store.outbox.committed.listen()
    await relay.publish_batch()
    events = []
    for n in range(40):
        events.append(ev(n, f"s{n}"))
        await store.append(f"s{n}", 0, [events[-1]])
        publisher.fail = 1
        with pytest.raises(ConnectionError):
            await relay.publish_batch()
        assert len(relay._logged._pending) <= 8
    await relay.drain()
    assert sorted(sent(publisher)) == sorted(ids(*events))
