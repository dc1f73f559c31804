"""A row published once is never stored twice, even when it comes round again after the
stream's duplicate window: a restart long after a crash, a broker away for longer than it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.js import JetStreamContext
from nats.js.api import StreamConfig

from baton_eventstore import OutboxRelay, Outgoing, SqlEventStore
from baton_messaging.embedded import EmbeddedNatsServer
from baton_messaging.publisher import JetStreamPublisher, PublishError

from .conftest import TestStream

WINDOW = 1.0  # the stream's duplicate window: short, so a test can outlast it
# JetStream forgets a msg id on a timer of one window, so it may keep one for up to two.
FORGOTTEN = 2 * WINDOW + 0.5


@pytest.fixture
async def store(sqlite_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(sqlite_url)
    yield store
    await store.close()


async def forgetful_stream(js: JetStreamContext) -> TestStream:
    key = uuid.uuid4().hex[:10]
    name, prefix = f"TEST_EVT_{key}", f"test.evt.{key}"
    await js.add_stream(StreamConfig(name=name, subjects=[f"{prefix}.>"], duplicate_window=WINDOW))
    return TestStream(js, name, prefix)


@pytest.fixture
async def stream(js: JetStreamContext) -> AsyncIterator[TestStream]:
    made = await forgetful_stream(js)
    yield made
    await js.delete_stream(made.name)


class CrashAfterPublish:
    """Publishes the first `crash_on`, then fails as if the process died before deleting."""

    def __init__(self, inner: JetStreamPublisher, crash_on: int) -> None:
        self.inner, self.crash_on = inner, crash_on

    async def publish_all(self, messages: Sequence[Outgoing], acknowledged: Any) -> None:
        await self.inner.publish_all(messages[: self.crash_on], acknowledged)
        raise ConnectionError("crashed after publishing")

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        return await self.inner.stored(messages, since)


class StoredNotAcknowledged:
    """The first batch is stored, but no acknowledgement comes back (a broker that went away
    right after storing); later batches go through."""

    def __init__(self, inner: JetStreamPublisher) -> None:
        self.inner, self.lost = inner, False
        self.msg_ids: list[str] = []

    async def publish_all(self, messages: Sequence[Outgoing], acknowledged: Any) -> None:
        self.msg_ids.extend(m.msg_id for m in messages)
        if self.lost:
            await self.inner.publish_all(messages, acknowledged)
            return
        self.lost = True
        await self.inner.publish_all(messages, lambda _: None)
        raise PublishError.of(messages[0].subject, messages[0].msg_id, "no acknowledgement")

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        return await self.inner.stored(messages, since)


async def test_a_restart_after_the_duplicate_window_stores_nothing_twice(
    store: SqlEventStore, stream: TestStream, js: JetStreamContext
) -> None:
    events = [stream.event(n) for n in range(5)]
    await store.append("s", 0, events)
    crashing = OutboxRelay(store, CrashAfterPublish(JetStreamPublisher(js), 3), lease_ttl=0.2)
    with pytest.raises(ConnectionError):
        await crashing.publish_batch()
    await asyncio.sleep(FORGOTTEN)  # down for longer than the stream remembers msg ids
    relay = OutboxRelay(store, JetStreamPublisher(js), poll_interval=0.05, duplicate_window=WINDOW)
    await relay.drain()
    assert await stream.msg_ids() == [str(e.event_id) for e in events]
    assert await store.outbox.count() == 0


async def test_a_row_retried_after_the_window_by_a_running_relay_is_stored_once(
    store: SqlEventStore, stream: TestStream, js: JetStreamContext
) -> None:
    events = [stream.event(n) for n in range(4)]
    await store.append("s", 0, events)
    publisher = StoredNotAcknowledged(JetStreamPublisher(js))
    relay = OutboxRelay(store, publisher, poll_interval=0.05, duplicate_window=WINDOW)
    with pytest.raises(PublishError):
        await relay.publish_batch()
    await asyncio.sleep(FORGOTTEN)  # the broker came back only after its window
    await relay.drain()
    assert await stream.msg_ids() == [str(e.event_id) for e in events]
    assert publisher.msg_ids == [str(e.event_id) for e in events]  # asked, not sent again
    assert await store.outbox.count() == 0


async def test_a_running_relay_publishes_each_row_once_after_nats_was_away(
    store: SqlEventStore, tmp_path: Path
) -> None:
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    nc = await nats.connect(server.url, max_reconnect_attempts=-1, reconnect_time_wait=0.1)
    try:
        js = nc.jetstream()
        stream = await forgetful_stream(js)
        relay = OutboxRelay(
            store, JetStreamPublisher(js, timeout=0.5), poll_interval=0.05,
            max_backoff=0.2, duplicate_window=WINDOW,
        )  # fmt: skip
        relay.start()
        events = [stream.event(n) for n in range(6)]
        await store.append("s", 0, events[:3])
        relay.kick()
        while await store.outbox.count():  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        server.stop()
        await store.append("s", 3, events[3:])  # committed while NATS is away
        relay.kick()
        await asyncio.sleep(FORGOTTEN)  # the relay keeps retrying on its own
        server.start()
        async with asyncio.timeout(30):
            while await store.outbox.count():  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        await relay.stop()
        assert await stream.msg_ids() == [str(e.event_id) for e in events]
    finally:
        await nc.close()
        server.stop()


async def test_stored_names_the_msg_ids_a_stream_holds_from_a_time_on(
    stream: TestStream, js: JetStreamContext
) -> None:
    publisher = JetStreamPublisher(js)
    kept = [Outgoing(f"{stream.prefix}.a", b"%d" % n, f"m-{n}", {}) for n in range(300)]
    kept.append(Outgoing(f"{stream.prefix}.b", b"b", "m-b", {}))
    await publisher.publish_all(kept, lambda _: None)
    asked = [
        kept[0], kept[299], kept[300],
        Outgoing(f"{stream.prefix}.a", b"x", "m-never", {}),
        Outgoing("nowhere.captured", b"y", "m-nowhere", {}),
    ]  # fmt: skip
    an_hour = timedelta(hours=1)
    assert await publisher.stored(asked, datetime.now(UTC) - an_hour) == {"m-0", "m-299", "m-b"}
    assert await publisher.stored(asked, datetime.now(UTC) + an_hour) == set()
    assert (await js.stream_info(stream.name)).state.consumer_count == 0  # none left behind
