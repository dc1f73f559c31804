"""A relay that takes the lease (a restart after a crash, a replica taking over) sends no
event again that its predecessor had published: JetStream's duplicate window would drop the
copy from the stream, but every plain NATS subscriber of the subject would get it twice."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import nats
import pytest

from baton_eventstore import OutboxRelay, SqlEventStore
from baton_messaging.publisher import JetStreamPublisher

from .conftest import TestStream
from .test_relay_window import CrashAfterPublish


@pytest.fixture
async def store(sqlite_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(sqlite_url)
    yield store
    await store.close()


async def test_a_restart_right_after_a_crash_publishes_nothing_twice(
    store: SqlEventStore, stream: TestStream, nats_url: str
) -> None:
    seen: Counter[str] = Counter()
    nc = await nats.connect(nats_url)  # a plain subscriber, as a service outside Baton has

    async def count(msg: nats.aio.msg.Msg) -> None:
        seen[(msg.headers or {})["Nats-Msg-Id"]] += 1

    try:
        await nc.subscribe(f"{stream.prefix}.>", cb=count)
        await nc.flush()
        events = [stream.event(n) for n in range(5)]
        await store.append("s", 0, events)
        publisher = JetStreamPublisher(stream.js)
        crashing = OutboxRelay(store, CrashAfterPublish(publisher, 3), holder="replica-1")
        with pytest.raises(ConnectionError):
            await crashing.publish_batch()  # 3 published, none deleted: the process died
        restarted = OutboxRelay(store, publisher, holder="replica-1")  # same replica id
        await restarted.drain()
        await nc.flush()
        await asyncio.sleep(0.2)  # the last deliveries to the plain subscriber
        ids = [str(e.event_id) for e in events]
        assert await stream.msg_ids() == ids
        assert seen == Counter(ids)  # each once, not the first three twice
        assert await store.outbox.count() == 0
    finally:
        await nc.close()
