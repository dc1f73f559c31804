"""The outbox relay against a real NATS: in order, exactly once, across crashes and replicas."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from nats.js import JetStreamContext

from baton_eventstore import OutboxRelay, Outgoing, SqlEventStore
from baton_messaging.publisher import JetStreamPublisher, PublishError

from .conftest import TestStream

WORKER = Path(__file__).with_name("relay_worker.py")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_url"))
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(db_url)
    yield store
    await store.close()


class CrashAfterPublish:
    """Publishes, then fails as if the process died before deleting the row."""

    def __init__(self, inner: JetStreamPublisher, crash_on: int) -> None:
        self.inner, self.crash_on = inner, crash_on

    async def publish_all(self, messages: Sequence[Outgoing], acknowledged: Any) -> None:
        await self.inner.publish_all(messages[: self.crash_on], acknowledged)
        raise ConnectionError("crashed after publishing")

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        return await self.inner.stored(messages, since)


async def test_every_committed_event_is_published_once_in_order(
    store: SqlEventStore, stream: TestStream, js: JetStreamContext
) -> None:
    relay = OutboxRelay(store, JetStreamPublisher(js), poll_interval=60, batch_size=7)
    relay.start()
    events = [stream.event(n, f"s{n % 3}") for n in range(30)]
    for n, event in enumerate(events):
        await store.append(f"s{n % 3}", n // 3, [event])
        relay.kick()
    await relay.drain()
    await relay.stop()
    assert await stream.msg_ids() == [str(e.event_id) for e in events]
    assert await store.outbox.count() == 0


async def test_republish_after_crash_is_deduplicated(
    store: SqlEventStore, stream: TestStream, js: JetStreamContext
) -> None:
    events = [stream.event(n) for n in range(5)]
    await store.append("s", 0, events)
    crashing = OutboxRelay(store, CrashAfterPublish(JetStreamPublisher(js), 3), lease_ttl=0.2)
    with pytest.raises(ConnectionError):
        await crashing.publish_batch()
    # Three were published; every row survived, as after a crash (rows are deleted later,
    # together), so the next relay publishes those three again.
    assert await store.outbox.count() == 5
    await OutboxRelay(store, JetStreamPublisher(js), poll_interval=0.05).drain()
    assert await stream.msg_ids() == [str(e.event_id) for e in events]


async def test_relay_killed_mid_way_then_restarted_publishes_each_once(
    db_url: str, store: SqlEventStore, stream: TestStream, js: JetStreamContext, nats_url: str
) -> None:
    events = [stream.event(n, f"k{n % 10}") for n in range(1500)]
    for k in range(10):
        await store.append(f"k{k}", 0, events[k::10])
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Popen, not asyncio: the test needs a plain pid to SIGKILL.
    worker = subprocess.Popen([sys.executable, str(WORKER), db_url, nats_url], env=env)  # noqa: ASYNC220
    try:
        while await stream.count() < 200:
            assert worker.poll() is None, "worker exited before it was killed"
            await asyncio.sleep(0.02)
        os.kill(worker.pid, signal.SIGKILL)
    finally:
        worker.kill()
        worker.wait()
    assert await store.outbox.count() > 0, "worker finished before the kill; kill earlier"
    await OutboxRelay(store, JetStreamPublisher(js), poll_interval=0.1).drain(timeout=60)
    ids = await stream.msg_ids()
    assert sorted(ids) == sorted(str(e.event_id) for e in events)
    for k in range(10):  # each stream's events kept their order
        wanted = [str(e.event_id) for e in events[k::10]]
        assert [i for i in ids if i in set(wanted)] == wanted


class CountingPublisher:
    def __init__(self, inner: JetStreamPublisher) -> None:
        self.inner, self.msg_ids = inner, []

    async def publish_all(self, messages: Sequence[Outgoing], acknowledged: Any) -> None:
        self.msg_ids.extend(m.msg_id for m in messages)
        await self.inner.publish_all(messages, acknowledged)

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        return await self.inner.stored(messages, since)


async def test_two_relays_never_both_publish_and_hand_over(
    store: SqlEventStore, stream: TestStream, js: JetStreamContext
) -> None:
    a, b = CountingPublisher(JetStreamPublisher(js)), CountingPublisher(JetStreamPublisher(js))
    relay_a = OutboxRelay(store, a, poll_interval=0.02, batch_size=5, lease_ttl=5)
    relay_b = OutboxRelay(store, b, poll_interval=0.02, batch_size=5, lease_ttl=5)
    relay_a.start()
    await relay_a.drain()  # a holds the lease from here on
    relay_b.start()
    first = [stream.event(n) for n in range(40)]
    for n, event in enumerate(first):
        await store.append("s", n, [event])
    await relay_a.drain()
    assert (a.msg_ids, b.msg_ids) == ([str(e.event_id) for e in first], [])
    await relay_a.stop()  # releases the lease: b takes over without waiting for the TTL
    second = [stream.event(n) for n in range(40, 50)]
    await store.append("s", 40, second)
    relay_b.kick()
    # b's own loop must publish (not a drain from here), so poll the outbox until it is empty.
    while await store.outbox.count():  # noqa: ASYNC110
        await asyncio.sleep(0.02)
    await relay_b.stop()
    assert b.msg_ids == [str(e.event_id) for e in second]
    assert await stream.msg_ids() == [str(e.event_id) for e in first + second]


async def test_a_relay_that_stalled_past_its_lease_never_deletes_a_new_row(
    store: SqlEventStore, stream: TestStream, js: JetStreamContext
) -> None:
    """a publishes row 1 and stalls; b takes over, republishes and deletes it; the next event
    must not get id 1 again (SQLite reused it), or a's late delete removes it unsent."""
    a, b = CountingPublisher(JetStreamPublisher(js)), CountingPublisher(JetStreamPublisher(js))
    relay_a = OutboxRelay(store, a, lease_ttl=0.2, delete_interval=30, holder="a")
    relay_b = OutboxRelay(store, b, lease_ttl=30, delete_interval=30, holder="b")
    first, second = stream.event(0), stream.event(1)
    await store.append("s", 0, [first])
    assert await relay_a.publish_batch() == 1  # published, its delete put off
    await asyncio.sleep(0.3)  # a stalls past its lease
    await relay_b.drain()
    await store.append("s", 1, [second])
    assert await relay_a.publish_batch() is None  # a finds its lease gone and lets go
    await relay_b.drain()
    assert await stream.msg_ids() == [str(first.event_id), str(second.event_id)]


async def test_publish_all_stores_a_pipelined_batch_in_order(
    stream: TestStream, js: JetStreamContext
) -> None:
    messages = [
        Outgoing(f"{stream.prefix}.s{n % 4}", b"%d" % n, f"m-{n}", {"X-N": str(n)})
        for n in range(300)
    ]
    acked: list[int] = []
    await JetStreamPublisher(js).publish_all(messages, acked.append)
    assert acked == list(range(300))
    assert await stream.msg_ids() == [m.msg_id for m in messages]


async def test_publish_all_stops_at_a_subject_no_stream_captures(
    stream: TestStream, js: JetStreamContext
) -> None:
    messages = [
        Outgoing(f"{stream.prefix}.a", b"0", "m-0", {}),
        Outgoing(f"{stream.prefix}.a", b"1", "m-1", {}),
        Outgoing("nowhere.captured", b"2", "m-2", {}),
        Outgoing(f"{stream.prefix}.a", b"3", "m-3", {}),
    ]
    acked: list[int] = []
    with pytest.raises(
        PublishError, match=r"'nowhere\.captured' \(msg id m-2\) failed: NoStreamResponse"
    ):
        await JetStreamPublisher(js, timeout=5).publish_all(messages, acked.append)
    assert acked == [0, 1]


@pytest.mark.postgres
async def test_postgres_relay_reads_back_only_what_another_process_wrote(
    postgres_url: str, stream: TestStream, js: JetStreamContext
) -> None:
    mine = await SqlEventStore.from_url(postgres_url)
    theirs = await SqlEventStore.from_url(postgres_url)  # another replica's store
    fetches = 0
    fetch = mine.outbox.fetch

    async def counted(limit: int, exclude: Sequence[int] = ()) -> Any:
        nonlocal fetches
        fetches += 1
        return await fetch(limit, exclude)

    mine.outbox.fetch = counted  # type: ignore[method-assign]
    relay = OutboxRelay(mine, JetStreamPublisher(js), poll_interval=0.1)
    try:
        relay.start()
        await relay.drain()
        before = fetches
        events = [stream.event(n, f"m{n % 4}") for n in range(40)]
        other = stream.event(99, "t")
        for n, event in enumerate(events):
            await mine.append(f"m{n % 4}", n // 4, [event])
            relay.kick()
            if n == 20:
                await theirs.append("t", 0, [other])
            await asyncio.sleep(0.005)
        await relay.drain()
        await relay.stop()
        ids = await stream.msg_ids()
        assert sorted(ids) == sorted(str(e.event_id) for e in [*events, other])
        for k in range(4):  # each stream in order
            wanted = [str(e.event_id) for e in events[k::4]]
            assert [i for i in ids if i in set(wanted)] == wanted
        # 40 appends, about 0.3 s: the first reads, one per poll interval, the drains' last.
        assert fetches - before < 15
        assert await mine.outbox.count() == 0
    finally:
        await mine.close()
        await theirs.close()
