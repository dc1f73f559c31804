"""Streams from contracts, and durable pull consumers that resume where they left off."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import nats
import pytest
from faststream.nats import NatsBroker
from nats.aio.client import Client
from nats.js.api import RetentionPolicy

from baton_contracts import STREAMS, Retention, StreamSpec
from baton_messaging import (
    ConsumerDeclarationError,
    MessagingSettings,
    build_broker,
    declare_streams,
    durable_subscriber,
    start_broker,
)
from baton_messaging.broker import StreamDeclarationError
from baton_messaging.embedded import EmbeddedNatsServer


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await nats.connect(nats_url)
    yield client
    await client.close()


def fresh_spec(retention: Retention = Retention.LIMITS) -> StreamSpec:
    token = uuid.uuid4().hex[:8]
    return StreamSpec(
        name=f"TEST_{token.upper()}", subjects=(f"test.evt.{token}.*",), retention=retention
    )


async def test_contract_streams_exist_and_declaring_twice_is_harmless(nc: Client) -> None:
    js = nc.jetstream()
    await declare_streams(js, STREAMS)
    await declare_streams(js, STREAMS)
    assert STREAMS, "contracts declare at least one stream"
    for spec in STREAMS:
        config = (await js.stream_info(spec.name)).config
        assert sorted(config.subjects or []) == sorted(spec.subjects)
        assert config.retention == RetentionPolicy(spec.retention.value)
        assert config.max_age == pytest.approx(spec.max_age_seconds)
        assert config.duplicate_window == pytest.approx(spec.duplicate_window_seconds)


async def test_declaring_a_changed_spec_updates_the_stream(nc: Client) -> None:
    js = nc.jetstream()
    spec = fresh_spec(Retention.WORK_QUEUE)
    await declare_streams(js, [spec])
    wider = spec.model_copy(
        update={"subjects": (*spec.subjects, "test.extra." + spec.name), "max_age_seconds": 3600.0}
    )
    await declare_streams(js, [wider])
    config = (await js.stream_info(spec.name)).config
    assert sorted(config.subjects or []) == sorted(wider.subjects)
    assert config.max_age == pytest.approx(3600.0)
    assert config.retention == RetentionPolicy.WORK_QUEUE


async def test_an_older_spec_declared_later_keeps_the_newer_subjects(nc: Client) -> None:
    """A process of an older release (re)starting during a rolling upgrade declares the stream
    without the subjects added since: they stay, so newer publishers of them still land."""
    js = nc.jetstream()
    spec = fresh_spec()
    newer = spec.model_copy(update={"subjects": (*spec.subjects, "test.newer." + spec.name)})
    await declare_streams(js, [newer])
    await declare_streams(js, [spec.model_copy(update={"max_age_seconds": 3600.0})])
    config = (await js.stream_info(spec.name)).config
    assert sorted(config.subjects or []) == sorted(newer.subjects)
    assert config.max_age == pytest.approx(3600.0)
    ack = await js.publish("test.newer." + spec.name, b"x")
    assert ack.stream == spec.name
    await js.delete_stream(spec.name)


class Collector:
    """Records bodies and lets a test wait until a number of them arrived."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self._changed = asyncio.Condition()

    async def handle(self, body: str) -> None:
        async with self._changed:
            self.seen.append(body)
            self._changed.notify_all()

    async def wait_for(self, count: int) -> list[str]:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(self.seen) >= count), 10)
        return self.seen


async def consuming(
    url: str, spec: StreamSpec, collector: Collector, *, from_new: bool = False
) -> NatsBroker:
    return await filtered(url, spec, collector, spec.subjects[0], from_new=from_new)


async def publish(nc: Client, spec: StreamSpec, *bodies: str) -> None:
    js = nc.jetstream()
    for body in bodies:
        await js.publish(spec.subjects[0].replace("*", "k"), body.encode())


async def wait_all_acked(nc: Client, spec: StreamSpec, count: int) -> None:
    info = await nc.jetstream().consumer_info(spec.name, f"collector-{spec.name}")
    while info.ack_floor.stream_seq < count:
        await asyncio.sleep(0.02)
        info = await nc.jetstream().consumer_info(spec.name, f"collector-{spec.name}")


async def test_durable_consumer_resumes_after_the_service_restarts(
    nc: Client, nats_url: str
) -> None:
    spec = fresh_spec()
    first = Collector()
    broker = await consuming(nats_url, spec, first)
    await publish(nc, spec, "a", "b", "c")
    assert await first.wait_for(3) == ["a", "b", "c"]
    await wait_all_acked(nc, spec, 3)
    await broker.stop()

    await publish(nc, spec, "d", "e")
    second = Collector()
    broker = await consuming(nats_url, spec, second)
    try:
        assert await second.wait_for(2) == ["d", "e"]
    finally:
        await broker.stop()
    await nc.jetstream().delete_stream(spec.name)


FIRST_RETRY = 0.2
"""Seconds before a failed message comes again, in these tests (a second in services)."""


class FailingFirst(Collector):
    """Fails on the first `failures` deliveries, then records as a collector does."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures, self.tries = failures, 0
        self.times: list[float] = []

    async def handle(self, body: str) -> None:
        self.tries += 1
        self.times.append(time.monotonic())
        if self.tries <= self.failures:
            raise RuntimeError(f"failure {self.tries} of {self.failures}")
        await super().handle(body)


async def test_a_message_whose_handler_raises_is_delivered_again(nc: Client, nats_url: str) -> None:
    spec = fresh_spec()
    failing = FailingFirst(failures=2)
    broker = await consuming(nats_url, spec, failing)
    try:
        await publish(nc, spec, "a")
        assert await failing.wait_for(1) == ["a"]
        await wait_all_acked(nc, spec, 1)
        assert failing.tries == 3
    finally:
        await broker.stop()
        await nc.jetstream().delete_stream(spec.name)


async def test_a_failed_message_comes_again_later_and_later_each_time(
    nc: Client, nats_url: str
) -> None:
    # At once, every try of a store that is down for a minute would fail within seconds, and
    # the message would be given up while the store is still away.
    spec = fresh_spec()
    failing = FailingFirst(failures=3)
    broker = await consuming(nats_url, spec, failing)
    try:
        await publish(nc, spec, "a")
        assert await failing.wait_for(1) == ["a"]
    finally:
        await broker.stop()
        await nc.jetstream().delete_stream(spec.name)
    gaps = [b - a for a, b in itertools.pairwise(failing.times)]
    assert len(gaps) == 3
    assert gaps[0] >= FIRST_RETRY * 0.9, gaps
    assert gaps[1] >= 2 * FIRST_RETRY * 0.9 and gaps[2] >= 4 * FIRST_RETRY * 0.9, gaps


async def test_a_handler_that_always_raises_is_given_max_deliver_tries_then_the_next_message(
    nc: Client, nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "baton_messaging.consumers")
    spec = fresh_spec()
    seen: list[str] = []
    passed = Collector()

    async def fails_on_a(body: str) -> None:
        seen.append(body)
        if body == "a":
            raise RuntimeError("a is refused")
        await passed.handle(body)

    broker = build_broker(MessagingSettings(nats_url=nats_url), "collector")
    durable_subscriber(
        broker, spec.subjects[0], consumer="collector", stream=spec, fetch_timeout=0.5,
        max_deliver=3, first_retry_seconds=FIRST_RETRY,
    )(fails_on_a)  # fmt: skip
    await start_broker(broker, [spec])
    try:
        await publish(nc, spec, "a", "b")
        assert await passed.wait_for(1) == ["b"]
        for _ in range(100):
            if seen.count("a") >= 3:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # a fourth try of "a" would have come by now (0.8 s after)
        assert seen.count("a") == 3, seen
        mine = [r for r in caplog.records if r.name == "baton_messaging.consumers"]
        given_up = [r for r in mine if r.levelno == logging.ERROR]
        assert len(given_up) == 1 and "gave" in given_up[0].getMessage(), caplog.text
        assert "after 3 tries" in given_up[0].getMessage()
    finally:
        await broker.stop()
        await nc.jetstream().delete_stream(spec.name)


async def test_a_durable_from_new_skips_the_history_but_then_resumes(
    nc: Client, nats_url: str
) -> None:
    spec = fresh_spec()
    await declare_streams(nc.jetstream(), [spec])
    await publish(nc, spec, "old")
    first = Collector()
    broker = await consuming(nats_url, spec, first, from_new=True)
    await publish(nc, spec, "a")
    assert await first.wait_for(1) == ["a"]
    await wait_all_acked(nc, spec, 2)
    await broker.stop()

    await publish(nc, spec, "b")  # while the service is down: not new for the durable
    second = Collector()
    broker = await consuming(nats_url, spec, second, from_new=True)
    try:
        assert await second.wait_for(1) == ["b"]
    finally:
        await broker.stop()
    assert first.seen == ["a"] and second.seen == ["b"]
    await nc.jetstream().delete_stream(spec.name)


async def test_durable_consumer_survives_a_nats_restart(tmp_path: Path) -> None:
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    spec = fresh_spec()
    collector = Collector()
    broker = await consuming(server.url, spec, collector)
    try:
        # Closed on a failure too: a client left open reconnects to the server stopped below,
        # logging each refusal at ERROR into the tests after this one.
        async with await nats.connect(server.url) as nc:
            await publish(nc, spec, "before")
            assert await collector.wait_for(1) == ["before"]
            await wait_all_acked(nc, spec, 1)
        server.stop()
        server.start()  # same port and store: the stream and the durable are still there
        async with await nats.connect(server.url) as nc:
            await publish(nc, spec, "after")
            assert await collector.wait_for(2) == ["before", "after"]
    finally:
        await broker.stop()
        server.stop()


async def test_a_refused_stream_names_itself_and_the_reason(nc: Client) -> None:
    spec = fresh_spec().model_copy(update={"max_age_seconds": 10.0})
    with pytest.raises(StreamDeclarationError, match=spec.name) as caught:
        await declare_streams(nc.jetstream(), [spec])
    assert "duplicate" in str(caught.value)


def two_key_spec() -> StreamSpec:
    token = uuid.uuid4().hex[:8]
    return StreamSpec(name=f"TEST_{token.upper()}", subjects=(f"test.evt.{token}.*.*",))


async def filtered(
    url: str,
    spec: StreamSpec,
    collector: Collector,
    subjects: str | list[str],
    *,
    from_new: bool = False,
) -> NatsBroker:
    broker = build_broker(MessagingSettings(nats_url=url), "collector")
    durable_subscriber(
        broker, subjects, consumer="collector", stream=spec, fetch_timeout=0.5, from_new=from_new,
        first_retry_seconds=FIRST_RETRY,
    )(collector.handle)  # fmt: skip
    try:
        await start_broker(broker, [spec])
    except BaseException:
        # A start that fails (a durable JetStream refuses) has connected already, and the
        # caller never gets the broker to stop: it stayed connected past the test.
        await broker.stop()
        raise
    return broker


async def test_a_durable_on_several_filters_takes_only_their_subjects(
    nc: Client, nats_url: str
) -> None:
    spec = two_key_spec()
    base = spec.subjects[0].removesuffix(".*.*")
    collector = Collector()
    broker = await filtered(nats_url, spec, collector, [f"{base}.a.*", f"{base}.*.x"])
    js = nc.jetstream()
    try:
        for key in ("a.1", "b.1", "b.x", "c.2", "a.x"):
            await js.publish(f"{base}.{key}", key.encode())
        assert await collector.wait_for(3) == ["a.1", "b.x", "a.x"]
        info = await js.consumer_info(spec.name, f"collector-{spec.name}")
        assert info.delivered.consumer_seq == 3
    finally:
        await broker.stop()
        await js.delete_stream(spec.name)


async def test_a_changed_filter_is_applied_at_the_next_start_and_the_durable_keeps_its_place(
    nc: Client, nats_url: str
) -> None:
    spec = two_key_spec()
    base = spec.subjects[0].removesuffix(".*.*")
    js = nc.jetstream()
    first = Collector()
    broker = await filtered(nats_url, spec, first, [f"{base}.a.*"])
    await js.publish(f"{base}.a.1", b"a.1")
    assert await first.wait_for(1) == ["a.1"]
    await broker.stop()

    for key in ("a.2", "b.2"):  # while the service is down
        await js.publish(f"{base}.{key}", key.encode())
    second = Collector()
    broker = await filtered(nats_url, spec, second, [f"{base}.a.*", f"{base}.b.*"])
    try:
        assert await second.wait_for(2) == ["a.2", "b.2"]  # not a.1 again: same durable
        info = await js.consumer_info(spec.name, f"collector-{spec.name}")
        assert info.config.filter_subjects == [f"{base}.a.*", f"{base}.b.*"]
    finally:
        await broker.stop()
        await js.delete_stream(spec.name)


async def test_a_durable_change_jetstream_refuses_names_the_durable(
    nc: Client, nats_url: str
) -> None:
    spec = two_key_spec()
    subjects = [spec.subjects[0]]
    broker = await filtered(nats_url, spec, Collector(), subjects, from_new=True)
    await broker.stop()
    try:
        with pytest.raises(ConsumerDeclarationError, match=f"collector-{spec.name}") as caught:
            await filtered(nats_url, spec, Collector(), subjects, from_new=False)
        assert "deliver policy" in str(caught.value)
    finally:
        await nc.jetstream().delete_stream(spec.name)


def test_a_durable_needs_a_subject_its_stream_captures() -> None:
    broker = build_broker(MessagingSettings(), "collector")
    spec = two_key_spec()
    with pytest.raises(ValueError, match="at least one subject"):
        durable_subscriber(broker, [], consumer="collector", stream=spec)
    with pytest.raises(ValueError, match="'other.subject' is not captured by stream"):
        durable_subscriber(broker, [spec.subjects[0], "other.subject"], consumer="c", stream=spec)


async def test_a_publish_no_stream_took_declares_the_streams_again(nc: Client) -> None:
    """An older process narrowed the stream: the publish fails once, redeclares, then lands."""
    from baton_messaging import JetStreamPublisher
    from baton_messaging.publisher import PublishError

    js = nc.jetstream()
    spec = fresh_spec()
    newer = spec.model_copy(update={"subjects": (*spec.subjects, "test.newer." + spec.name)})
    await js.add_stream(name=spec.name, subjects=list(spec.subjects))  # as an older release left it
    publisher = JetStreamPublisher(js, timeout=2.0, redeclare=lambda: declare_streams(js, [newer]))
    message = ("test.newer." + spec.name, b"x", uuid.uuid4().hex, {})
    with pytest.raises(PublishError, match="NoStreamResponseError"):
        await publisher.publish_all([message], lambda _: None)
    acked: list[int] = []
    await publisher.publish_all([message], acked.append)
    assert acked == [0]
