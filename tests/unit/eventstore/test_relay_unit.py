"""The relay's loop on the in-memory store with a fake publisher: order, retries, lease, stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pytest

from baton_eventstore import (
    InMemoryEventStore,
    NewEvent,
    OutboxMessage,
    OutboxRelay,
    Outgoing,
    StoreUnavailable,
)


def ev(n: int, stream: str = "s") -> NewEvent:
    return NewEvent(uuid.uuid4(), "t", {"n": n}, publish=OutboxMessage(f"x.{stream}", b"%d" % n))


class FakePublisher:
    """Records publishes; fails the next `fail` calls; can be held mid-publish."""

    def __init__(self, fail: int = 0) -> None:
        self.sent: list[tuple[str, bytes, str, dict[str, str] | None]] = []
        self.batches: list[list[str]] = []  # the msg ids of each publish_all call
        self.fail = fail
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    async def publish_all(self, messages: Sequence[Outgoing], acknowledged: Any) -> None:
        self.batches.append([m.msg_id for m in messages])
        for index, message in enumerate(messages):
            await self.publish(*message)
            acknowledged(index)

    async def publish(self, subject: str, body: bytes, msg_id: str, headers: Any = None) -> None:
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            self.fail -= 1
            raise ConnectionError("broker down")
        self.sent.append((subject, body, msg_id, headers))

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        """What a broker that stored everything sent would say it holds."""
        return {m.msg_id for m in messages} & {msg_id for _, _, msg_id, _ in self.sent}


async def test_publishes_in_order_with_event_id_as_msg_id_and_deletes() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    events = [ev(1, "a"), ev(2, "b"), ev(3, "a")]
    await store.append("a", 0, [events[0]])
    await store.append("b", 0, [events[1]])
    await store.append("a", 1, [events[2]])
    await OutboxRelay(store, publisher, batch_size=2).drain()
    assert [(s, m) for s, _, m, _ in publisher.sent] == [
        ("x.a", str(events[0].event_id)),
        ("x.b", str(events[1].event_id)),
        ("x.a", str(events[2].event_id)),
    ]
    assert await store.outbox.count() == 0


async def test_failed_publish_keeps_the_row_and_its_successors_in_order() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    events = [ev(n) for n in range(4)]
    await store.append("s", 0, events)
    relay = OutboxRelay(store, publisher)
    publisher.fail = 0
    await relay.publish_batch()
    publisher.sent.clear()
    await store.append("s", 4, more := [ev(n) for n in range(4, 7)])
    publisher.fail = 2
    with pytest.raises(ConnectionError):
        await relay.publish_batch()
    assert await store.outbox.count() == 7  # four published (deleted later, together), three not
    await relay.drain()
    assert [m for _, _, m, _ in publisher.sent] == [str(e.event_id) for e in more]
    assert await store.outbox.count() == 0


async def test_a_batch_goes_to_the_publisher_in_one_call_in_order() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    events = [ev(n, f"s{n % 3}") for n in range(7)]
    for n, event in enumerate(events):
        await store.append(f"s{n % 3}", n // 3, [event])
    assert await OutboxRelay(store, publisher, batch_size=5).publish_batch() == 5
    assert publisher.batches == [[str(e.event_id) for e in events[:5]]]


class RefusingPublisher(FakePublisher):
    """Refuses every message whose msg id is in `refused`, as a broker does a poison message."""

    def __init__(self, refused: set[str]) -> None:
        super().__init__()
        self.refused = refused

    async def publish(self, subject: str, body: bytes, msg_id: str, headers: Any = None) -> None:
        if msg_id in self.refused:
            raise ValueError(f"{msg_id}: refused")
        await super().publish(subject, body, msg_id, headers)


async def test_after_a_failed_batch_rows_go_one_at_a_time_until_one_is_published() -> None:
    store = InMemoryEventStore()
    events = [ev(n) for n in range(5)]
    ids = [str(e.event_id) for e in events]
    await store.append("s", 0, events)
    publisher = RefusingPublisher({ids[1]})
    relay = OutboxRelay(store, publisher)
    for _ in range(3):  # a message refused for good holds what follows it
        with pytest.raises(ValueError, match="refused"):
            await relay.publish_batch()
    assert publisher.batches == [ids, ids[1:2], ids[1:2]]
    publisher.refused.clear()  # the broker takes it now: one row, then whole batches again
    assert await relay.publish_batch() == 1
    assert await relay.publish_batch() == 3
    assert publisher.batches[3:] == [ids[1:2], ids[2:]]
    assert [m for _, _, m, _ in publisher.sent] == ids


async def test_loop_retries_after_failures_without_losing_rows() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher(fail=3)
    events = [ev(n) for n in range(3)]
    await store.append("s", 0, events)
    relay = OutboxRelay(store, publisher, poll_interval=60, max_backoff=0.01)
    relay.start()
    await relay.drain()
    await relay.stop()
    assert [m for _, _, m, _ in publisher.sent] == [str(e.event_id) for e in events]


async def test_kick_wakes_a_sleeping_loop() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    relay = OutboxRelay(store, publisher, poll_interval=3600)
    relay.start()
    await asyncio.sleep(0)  # let the loop find the outbox empty and go to sleep
    await store.append("s", 0, [ev(1)])
    relay.kick()
    await asyncio.wait_for(publisher.entered.wait(), timeout=30)
    await relay.stop()
    assert len(publisher.sent) == 1


async def test_a_kick_lets_what_the_loop_already_has_to_do_run_before_the_relay() -> None:
    # A handler kicks after its commit and then publishes its reply, which nats-py's flusher
    # task writes on its next run: the relay must not build and send its batch ahead of that.
    order: list[str] = []

    class Publisher(FakePublisher):
        async def publish(self, *args: Any, **kwargs: Any) -> None:
            order.append("relay")
            await super().publish(*args, **kwargs)

    store, publisher = InMemoryEventStore(), Publisher()
    relay = OutboxRelay(store, publisher, poll_interval=3600)
    relay.start()
    for _ in range(3):  # let the loop find the outbox empty and go to sleep
        await asyncio.sleep(0)
    await store.append("s", 0, [ev(1)])
    relay.kick()
    asyncio.get_running_loop().call_soon(order.append, "flusher")  # as a publish wakes it
    await asyncio.wait_for(publisher.entered.wait(), timeout=30)
    await relay.stop()
    assert order == ["flusher", "relay"]


def test_a_kick_outside_an_event_loop_still_wakes_the_relay() -> None:
    relay = OutboxRelay(InMemoryEventStore(), FakePublisher(), poll_interval=3600)
    relay.kick()
    assert relay._wake.is_set()


async def test_second_relay_waits_for_the_lease_and_takes_over_on_stop() -> None:
    store = InMemoryEventStore()
    first, second = FakePublisher(), FakePublisher()
    relay_a = OutboxRelay(store, first, poll_interval=3600)
    relay_b = OutboxRelay(store, second, poll_interval=3600)
    await store.append("s", 0, [ev(1)])
    assert await relay_a.publish_batch() == 1
    await store.append("s", 1, [ev(2)])
    assert await relay_b.publish_batch() is None
    relay_a.start()
    await relay_a.stop()
    assert await relay_b.publish_batch() == 1
    assert (len(first.sent), len(second.sent)) == (1, 1)


async def test_stop_finishes_the_in_flight_batch() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    publisher.gate = asyncio.Event()
    await store.append("s", 0, [ev(1), ev(2)])
    relay = OutboxRelay(store, publisher, poll_interval=3600)
    relay.start()
    await publisher.entered.wait()
    stopping = asyncio.create_task(relay.stop())
    publisher.gate.set()
    await stopping
    assert len(publisher.sent) == 2
    assert await store.outbox.count() == 0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        OutboxRelay(InMemoryEventStore(), FakePublisher(), batch_size=0)
    with pytest.raises(ValueError, match="delete_interval"):
        OutboxRelay(InMemoryEventStore(), FakePublisher(), delete_interval=0)
    with pytest.raises(ValueError, match="max_undeleted"):
        OutboxRelay(InMemoryEventStore(), FakePublisher(), max_undeleted=0)
    with pytest.raises(ValueError, match="duplicate_window"):
        OutboxRelay(InMemoryEventStore(), FakePublisher(), duplicate_window=0)


class HoldingPublisher(FakePublisher):
    """A broker that already holds the msg ids in `held`, and says which it was asked about."""

    def __init__(self, held: set[str]) -> None:
        super().__init__()
        self.held, self.asked = held, []

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        self.asked.append([m.msg_id for m in messages])
        return self.held & {m.msg_id for m in messages}


async def test_rows_older_than_half_the_window_are_sent_only_if_the_broker_lacks_them() -> None:
    store = InMemoryEventStore()
    events = [ev(n) for n in range(4)]
    ids = [str(e.event_id) for e in events]
    await store.append("s", 0, events)
    publisher = HoldingPublisher({ids[0], ids[2]})  # published before, long ago
    relay = OutboxRelay(store, publisher, duplicate_window=1e-9)  # every row is old by now
    assert await relay.publish_batch() == 4
    assert publisher.asked == [ids]
    assert [m for _, _, m, _ in publisher.sent] == [ids[1], ids[3]]
    await relay.drain()
    assert await store.outbox.count() == 0


async def test_rows_committed_just_now_are_sent_without_asking_the_broker() -> None:
    store, publisher = InMemoryEventStore(), HoldingPublisher(set())
    relay = OutboxRelay(store, publisher)
    assert await relay.publish_batch() == 0  # the lease is taken: rows from now on are its own
    await store.append("s", 0, [ev(1), ev(2)])
    assert await relay.publish_batch() == 2
    assert (publisher.asked, len(publisher.sent)) == ([], 2)


async def test_rows_committed_before_the_lease_was_taken_are_asked_about_however_young() -> None:
    store = InMemoryEventStore()
    events = [ev(n) for n in range(3)]
    ids = [str(e.event_id) for e in events]
    await store.append("s", 0, events)  # a relay before a crash published ids[0] and died
    publisher = HoldingPublisher({ids[0]})
    assert await OutboxRelay(store, publisher).publish_batch() == 3
    assert publisher.asked == [ids]
    assert [msg_id for _, _, msg_id, _ in publisher.sent] == ids[1:]


async def test_after_a_batch_the_broker_held_none_of_the_backlog_is_sent_without_asking() -> None:
    store = InMemoryEventStore()
    events = [ev(n) for n in range(6)]
    ids = [str(e.event_id) for e in events]
    await store.append("s", 0, events)  # a backlog, none of it published before
    publisher = HoldingPublisher(set())
    relay = OutboxRelay(store, publisher, batch_size=2)
    assert [await relay.publish_batch() for _ in range(3)] == [2, 2, 2]
    assert publisher.asked == [ids[:2]]  # one lookup, not one per batch
    assert [msg_id for _, _, msg_id, _ in publisher.sent] == ids


class CountingOutbox:
    """The in-memory outbox, counting the delete statements the relay sends."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self.inner, self.deletes = store.outbox, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def delete(self, ids: Any) -> None:
        self.deletes += 1
        await self.inner.delete(ids)


class CountingStore:
    def __init__(self, store: InMemoryEventStore) -> None:
        self.outbox = CountingOutbox(store)


async def test_published_rows_are_left_out_of_fetches_and_deleted_together() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    counting = CountingStore(store)
    relay = OutboxRelay(counting, publisher, delete_interval=60, max_undeleted=4)
    for n in range(4):
        await store.append(f"s{n}", 0, [ev(n)])
        assert await relay.publish_batch() == 1  # only the new row: the published are left out
    assert (await store.outbox.count(), counting.outbox.deletes) == (4, 0)
    await store.append("s4", 0, [ev(4)])
    assert await relay.publish_batch() == 1  # four were waiting: one DELETE for all of them
    assert (await store.outbox.count(), counting.outbox.deletes) == (1, 1)
    assert len(publisher.sent) == len({m for _, _, m, _ in publisher.sent}) == 5


async def test_an_idle_relay_deletes_published_rows_after_the_delete_interval() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    relay = OutboxRelay(store, publisher, poll_interval=3600, delete_interval=0.02)
    relay.start()
    try:
        await store.append("s", 0, [ev(1), ev(2)])
        relay.kick()
        async with asyncio.timeout(5):  # no kick and no poll comes: the loop wakes to delete
            while await store.outbox.count():  # noqa: ASYNC110
                await asyncio.sleep(0.005)
        assert len(publisher.sent) == 2
    finally:
        await relay.stop()


async def test_stop_leaves_no_published_row_behind() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    relay = OutboxRelay(store, publisher, poll_interval=60)
    relay.start()
    await store.append("s", 0, [ev(1), ev(2)])
    relay.kick()
    while len(publisher.sent) < 2:  # noqa: ASYNC110
        await asyncio.sleep(0.001)
    await relay.stop()
    assert await store.outbox.count() == 0
    assert len(publisher.sent) == 2


async def test_a_relay_that_lost_the_lease_still_deletes_what_it_published() -> None:
    store, publisher = InMemoryEventStore(), FakePublisher()
    await store.append("s", 0, [ev(1)])
    relay = OutboxRelay(store, publisher, lease_ttl=0.01)
    assert await relay.publish_batch() == 1
    await asyncio.sleep(0.02)  # the lease expires and another relay takes it
    assert await store.outbox.acquire_lease("outbox", "other", 60)
    assert await relay.publish_batch() is None
    assert await store.outbox.count() == 0
    assert len(publisher.sent) == 1


class GoneOnStopOutbox:
    """The in-memory outbox, whose database went away before the relay's stop."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self.inner, self.gone, self.tries = store.outbox, False, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def delete(self, ids: Any) -> None:
        await self._reach()
        await self.inner.delete(ids)

    async def release_lease(self, name: str, holder: str) -> None:
        await self._reach()
        await self.inner.release_lease(name, holder)

    async def _reach(self) -> None:
        if self.gone:
            self.tries += 1
            raise StoreUnavailable("PostgreSQL: no answer in time")


async def test_a_stop_on_a_database_gone_away_logs_it_and_tries_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The release raised out of the stop: the service's stop then left its broker and pools
    # open. A second try after the first failed only waited out another statement's bound.
    store, publisher = InMemoryEventStore(), FakePublisher()
    gone = GoneOnStopOutbox(store)
    holder = type("Store", (), {"outbox": gone})()
    relay = OutboxRelay(holder, publisher, poll_interval=60, delete_interval=60)
    relay.start()
    await store.append("s", 0, [ev(1)])
    relay.kick()
    while not publisher.sent:  # noqa: ASYNC110
        await asyncio.sleep(0.001)
    gone.gone = True
    with caplog.at_level(logging.WARNING):
        await relay.stop()
    assert gone.tries == 1
    assert "deleting published rows and releasing the lease on stop failed" in caplog.text
    assert await store.outbox.count() == 1  # left for the next relay, which looks it up first


class DownOutbox:
    """The store's outbox, unreachable for its first `down` fetches."""

    def __init__(self, outbox: Any, down: int) -> None:
        self._outbox, self.down = outbox, down

    def __getattr__(self, name: str) -> Any:
        return getattr(self._outbox, name)

    async def fetch(self, limit: int, exclude: Sequence[int] = ()) -> Any:
        if self.down:
            self.down -= 1
            raise StoreUnavailable("connection refused")
        return await self._outbox.fetch(limit, exclude)


async def lines_until_published(
    relay: OutboxRelay, publisher: FakePublisher, caplog: pytest.LogCaptureFixture, level: int
) -> list[logging.LogRecord]:
    """The relay's log records at `level` and above, from its start until it published."""
    with caplog.at_level(level, logger="baton_eventstore.relay"):
        relay.start()
        async with asyncio.timeout(5):
            while not publisher.sent:  # noqa: ASYNC110  (the loop's own retries, no drain)
                await asyncio.sleep(0.01)
        await relay.stop()
    return [r for r in caplog.records if r.name == "baton_eventstore.relay"]


async def test_a_database_outage_is_one_line_naming_it_and_the_recovery_is_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # It was logged as "publish failed" (pointing at NATS) with a 60-line traceback every
    # retry, about 440 lines in a 13 s outage, and nothing said when it ended.
    store, publisher = InMemoryEventStore(), FakePublisher()
    await store.append("s", 0, [ev(1)])
    store.outbox = DownOutbox(store.outbox, down=3)  # type: ignore[assignment]
    relay = OutboxRelay(store, publisher, poll_interval=60, max_backoff=0.01)
    said = await lines_until_published(relay, publisher, caplog, logging.INFO)
    outage = [r for r in said if r.levelno >= logging.WARNING]
    assert len(outage) == 1 and not outage[0].exc_info
    first = outage[0].getMessage()
    assert first.startswith("outbox relay: the database is unavailable (StoreUnavailable: ")
    back = [r.getMessage() for r in said if r.levelno == logging.INFO]
    assert len(back) == 1 and back[0].startswith("outbox relay: publishing again after 3 failed")
    assert len(publisher.sent) == 1


class SteppedClock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_long_nats_outage_is_one_warning_then_one_a_minute_then_its_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Every retry (a few seconds apart) was a WARNING: hundreds in a ten-minute outage.
    clock, store, publisher = SteppedClock(), InMemoryEventStore(), FakePublisher(fail=30)
    await store.append("s", 0, [ev(1)])
    publish = publisher.publish

    async def seven_seconds(*message: Any) -> None:  # each try takes 7 s on the relay's clock
        clock.now += 7
        await publish(*message)

    publisher.publish = seven_seconds  # type: ignore[method-assign]
    relay = OutboxRelay(store, publisher, poll_interval=60, max_backoff=0.01, clock=clock)
    said = await lines_until_published(relay, publisher, caplog, logging.DEBUG)
    warnings = [r.getMessage() for r in said if r.levelno >= logging.WARNING]
    cause = "the broker did not take the events (ConnectionError: broker down)"
    assert warnings == [
        f"outbox relay: {cause}; they stay in the outbox; retrying in 0.1s",
        # Tries 10, 19, 28 ended at 70, 133, 196 s: 60 s or more after the line before.
        f"outbox relay: still failing after 70 s and 10 tries: {cause}; they stay in the "
        "outbox; retrying in 0.0s",
        f"outbox relay: still failing after 133 s and 19 tries: {cause}; they stay in the "
        "outbox; retrying in 0.0s",
        f"outbox relay: still failing after 196 s and 28 tries: {cause}; they stay in the "
        "outbox; retrying in 0.0s",
    ]
    assert not any(r.exc_info for r in said if r.levelno >= logging.WARNING)
    tracebacks = [r for r in said if r.levelno == logging.DEBUG and r.exc_info]
    assert len(tracebacks) == 30  # every try's, at DEBUG
    back = [r.getMessage() for r in said if r.levelno == logging.INFO]
    assert back == ["outbox relay: publishing again after 30 failed tries (217.0 s)"]
    assert relay.stalled_for() == 0.0


async def test_a_publish_timeout_is_the_brokers_one_line_and_the_stall_is_measured(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A publish that timed out raised TimeoutError, an OSError: it was logged as "the
    # database is unavailable". And nothing told how long the events had been waiting.
    store, publisher, event = InMemoryEventStore(), FakePublisher(), ev(1)
    await store.append("s", 0, [event])
    relay = OutboxRelay(store, publisher, poll_interval=60, max_backoff=0.01)
    assert relay.stalled_for() == 0.0

    async def timed_out(*_: Any) -> None:
        raise TimeoutError("no acknowledgement within 5s")

    publisher.publish = timed_out  # type: ignore[method-assign]
    with caplog.at_level("INFO", logger="baton_eventstore.relay"):
        relay.start()
        await asyncio.sleep(0.2)
        stalled = relay.stalled_for()
        assert stalled > 0.1
        del publisher.publish  # the broker takes them again
        async with asyncio.timeout(5):
            while relay.stalled_for() != 0.0:  # noqa: ASYNC110  (the loop's own retries)
                await asyncio.sleep(0.01)
        await relay.stop()
    said = [r.getMessage() for r in caplog.records if r.name == "baton_eventstore.relay"]
    assert not [m for m in said if "database" in m]
    broker = [m for m in said if m.startswith("outbox relay: the broker did not take the events")]
    assert broker and all("TimeoutError: no acknowledgement within 5s" in m for m in broker)
    assert [m for _, _, m, _ in publisher.sent] == [str(event.event_id)]


async def test_a_relay_whose_loop_ended_unstopped_is_stalled_for_good() -> None:
    relay = OutboxRelay(InMemoryEventStore(), FakePublisher(), poll_interval=60)
    relay.start()
    assert relay._task is not None
    relay._task.cancel()  # what a BaseException out of the loop leaves
    with contextlib.suppress(asyncio.CancelledError):
        await relay._task
    assert relay.stalled_for() == math.inf


async def test_the_stall_counts_from_the_start_of_the_first_failed_try() -> None:
    # A publish that fails only when its timeout ends (5 s by default) was counted from its
    # end: the health said so one try late.
    store, publisher = InMemoryEventStore(), FakePublisher()
    await store.append("s", 0, [ev(1)])
    relay = OutboxRelay(store, publisher, poll_interval=60, max_backoff=60)

    async def slow_failure(*_: Any) -> None:
        await asyncio.sleep(0.3)
        raise TimeoutError("no acknowledgement within 0.3s")

    publisher.publish = slow_failure  # type: ignore[method-assign]
    relay.start()
    try:
        async with asyncio.timeout(5):
            while relay.stalled_for() == 0.0:  # noqa: ASYNC110  (the loop's first try)
                await asyncio.sleep(0.01)
        assert relay.stalled_for() >= 0.3
    finally:
        del publisher.publish
        await relay.stop()
