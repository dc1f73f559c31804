"""Workflow events from JetStream: the process's one live consumer, and per-user replay.

Stream sequence numbers are the `seq` clients see: stable, ordered, the same on every replica.
The live feed is an ordered push consumer of our own (ephemeral, no acks, idle heartbeats):
it tracks the last stream seq it handed on, and whenever it sees a gap or stops hearing from
the server (NATS restarted, consumer gone) it recreates the consumer just after that seq.

Deliveries are taken straight from the client's protocol parser (`DeliveryTap`), not through
nats-py's `Msg` objects, header parsing and per-subscription queue: that path cost about as
much CPU as the rest of a delivery to a socket. Heartbeats still take nats-py's path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from datetime import UTC, datetime

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, Header
from nats.js.client import JetStreamContext

from baton_contracts import STREAMS, StreamSpec, stream_name
from baton_contracts.workflow import WORKFLOW_EVENTS
from baton_messaging.broker import declare_streams
from baton_notifier.adapters.delivery_tap import DeliveryTap
from baton_notifier.adapters.nats_link import NatsLink
from baton_notifier.domain.live import MalformedEvent, StreamBounds, parse_event, subject_safe
from baton_notifier.service.live import LiveHub
from baton_notifier.service.live_ports import HistoryUnavailable, StoredEvent

log = logging.getLogger(__name__)


def _events_layout() -> tuple[StreamSpec, str]:
    subjects = {model.subject for model in WORKFLOW_EVENTS}
    prefixes = {(s.owner, s.kind.value) for s in subjects}
    # Replay filters put the user and the instance at fixed tokens: contracts must agree.
    # A step's start names its agent after them: at most one more token (`user_subjects`).
    assert len(prefixes) == 1 and {s.keys[:2] for s in subjects} == {("user_id", "instance_id")}
    assert all(len(s.keys) <= 3 for s in subjects)
    owner, kind = prefixes.pop()
    stream = next(s for s in STREAMS if s.name == stream_name(owner, kind))
    return stream, f"{owner}.{kind}"


EVENTS_STREAM, EVENTS_PREFIX = _events_layout()
ALL_EVENTS = f"{EVENTS_PREFIX}.>"


def user_subjects(user_id: str, instance_id: str | None) -> list[str]:
    """The filters for one user's events (one instance's); none when no subject could match.

    Events end with the user and the instance, or with one more token after them (the agent
    of a step that starts): one user's are `<user>.>`; one instance's take two filters.
    """
    if not subject_safe(user_id) or (instance_id is not None and not subject_safe(instance_id)):
        return []
    if instance_id is None:
        return [f"{EVENTS_PREFIX}.*.{user_id}.>"]
    return [
        f"{EVENTS_PREFIX}.*.{user_id}.{instance_id}",
        f"{EVENTS_PREFIX}.*.{user_id}.{instance_id}.*",
    ]


def ack_sequences(reply: str) -> tuple[int, int]:
    """(stream seq, consumer seq) from a JetStream delivery's reply subject (v1 or v2 form)."""
    tokens = reply.split(".")
    offset = 0 if len(tokens) == 9 else 2
    return int(tokens[5 + offset]), int(tokens[6 + offset])


class JetStreamLiveFeed:
    """Hands every new workflow event, in stream order and exactly once, to the hub."""

    def __init__(self, link: NatsLink, hub: LiveHub, *, heartbeat: float) -> None:
        self._link = link
        self._hub = hub
        self._heartbeat = heartbeat
        self._ready = asyncio.Event()
        self._reset = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_seq = 0
        self._next_cseq = 1
        self._heard = 0  # messages from the server: a count per message, the clock per heartbeat
        self._stopping = False
        self.delivered = 0

    async def wait_ready(self) -> None:
        """Return once the consumer exists, so every event published from now on arrives."""
        await self._ready.wait()

    @property
    def last_seq(self) -> int:
        """The stream seq this feed has read up to: every event at or below it is handed on."""
        return self._last_seq

    async def start(self) -> None:
        """Start consuming in the background, as soon as the NATS link is up."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="notifier-live-feed")

    async def stop(self) -> None:
        """Stop consuming (the server deletes the ephemeral consumer once we are gone)."""
        task, self._task = self._task, None
        if task is not None:
            # The flag too: a cancellation can be lost inside a library's `wait_for` (3.11).
            self._stopping = True
            self._reset.set()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        try:
            await self._link.wait_started()
        except Exception:
            log.error("live events are off: the NATS link never started")
            return
        while not self._stopping:
            try:
                await self._consume()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self._stopping:
                    log.warning("live feed: %s; resuming after seq %s", exc, self._last_seq)
                    await asyncio.sleep(self._heartbeat)

    async def _consume(self) -> None:
        nc: Client = self._link.broker.connection
        js = nc.jetstream()
        if not self._ready.is_set():
            await declare_streams(js, [EVENTS_STREAM])
            self._last_seq = (await js.stream_info(EVENTS_STREAM.name)).state.last_seq
        inbox = nc.new_inbox()
        sub = await nc.subscribe(inbox, cb=self._on_message)
        tap = DeliveryTap.of(nc)
        tap.route(sub, self._on_delivery)
        consumer = None
        try:
            self._next_cseq = 1
            self._reset.clear()
            info = await js.add_consumer(EVENTS_STREAM.name, self._config(inbox))
            consumer = info.name
            self._ready.set()
            await self._watch()
        finally:
            tap.unroute(sub)
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
            if consumer is not None and nc.is_connected:
                with contextlib.suppress(Exception):
                    await js.delete_consumer(EVENTS_STREAM.name, consumer)

    def _config(self, inbox: str) -> ConsumerConfig:
        return ConsumerConfig(
            deliver_subject=inbox,
            filter_subject=ALL_EVENTS,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=self._last_seq + 1,
            ack_policy=AckPolicy.NONE,
            idle_heartbeat=self._heartbeat,
            inactive_threshold=max(30.0, 10 * self._heartbeat),
            mem_storage=True,
            num_replicas=1,
        )

    async def _watch(self) -> None:
        """Return when the consumer must be recreated: a gap, or silence past three heartbeats."""
        loop = asyncio.get_running_loop()
        heard, heard_at = self._heard, loop.time()
        while not self._stopping:
            # asyncio.timeout, not wait_for: on 3.11 wait_for can turn a cancel into a timeout.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._heartbeat):
                    await self._reset.wait()
            if self._stopping:
                return
            if self._reset.is_set():
                raise RuntimeError("consumer sequence gap")
            if self._heard != heard:
                heard, heard_at = self._heard, loop.time()
            elif loop.time() - heard_at > 3 * self._heartbeat:
                raise RuntimeError("no heartbeat from the server")

    async def _on_message(self, msg: Msg) -> None:
        """nats-py's path: heartbeats (deliveries come through the tap)."""
        self._heard += 1
        if msg.headers and msg.headers.get(Header.STATUS) == "100":  # idle heartbeat
            if stalled := msg.headers.get(Header.CONSUMER_STALLED):
                await self._link.broker.connection.publish(stalled)
            return
        if msg.reply:
            self._on_delivery(msg.reply, msg.data)

    def _on_delivery(self, reply: str, data: bytes) -> None:
        self._heard += 1
        if not reply:
            return  # not a JetStream delivery
        stream_seq, consumer_seq = ack_sequences(reply)
        if consumer_seq != self._next_cseq:
            self._reset.set()  # something was dropped: start again after the last seq we have
            return
        self._next_cseq += 1
        if stream_seq <= self._last_seq:
            return
        self._last_seq = stream_seq
        try:
            event = parse_event(stream_seq, data)
        except MalformedEvent as exc:
            log.warning("skipping a malformed event: %s", exc)
            return
        self.delivered += 1
        self._hub.deliver(event)


class JetStreamHistory:
    """Reads one user's stored events back with a short-lived pull consumer."""

    def __init__(self, link: NatsLink, *, batch: int = 256, timeout: float = 5.0) -> None:
        self._link = link
        self._batch = batch
        self._timeout = timeout

    def _js(self) -> JetStreamContext:
        if not self._link.is_connected:
            raise HistoryUnavailable("not connected to NATS")
        nc: Client = self._link.broker.connection
        return nc.jetstream(timeout=self._timeout)

    async def bounds(self) -> StreamBounds:
        """The first and last seq the events stream holds now."""
        try:
            state = (await self._js().stream_info(EVENTS_STREAM.name)).state
        except HistoryUnavailable:
            raise
        except Exception as exc:
            raise HistoryUnavailable(f"stream info: {exc}") from exc
        return StreamBounds(first_seq=state.first_seq, last_seq=state.last_seq)

    async def since(
        self, user_id: str, instance_id: str | None, after_seq: int
    ) -> AsyncGenerator[StoredEvent, None]:
        """The user's (instance's) events after `after_seq` stored right now, in order."""
        subjects = user_subjects(user_id, instance_id)
        if not subjects:
            return
        js = self._js()
        config = ConsumerConfig(
            filter_subject=subjects[0] if len(subjects) == 1 else None,
            filter_subjects=subjects if len(subjects) > 1 else None,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=after_seq + 1,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
            num_replicas=1,
        )
        try:
            info = await js.add_consumer(EVENTS_STREAM.name, config)
        except Exception as exc:
            raise HistoryUnavailable(f"replay consumer: {exc}") from exc
        try:
            remaining = info.num_pending or 0
            if remaining:
                async for stored in self._read(js, info.name, remaining):
                    yield stored
        finally:
            with contextlib.suppress(Exception):
                await js.delete_consumer(EVENTS_STREAM.name, info.name)

    async def _read(
        self, js: JetStreamContext, consumer: str, remaining: int
    ) -> AsyncGenerator[StoredEvent, None]:
        try:
            sub = await js.pull_subscribe_bind(consumer=consumer, stream=EVENTS_STREAM.name)
        except Exception as exc:
            raise HistoryUnavailable(f"replay subscription: {exc}") from exc
        try:
            while remaining > 0:
                try:
                    messages = await sub.fetch(min(self._batch, remaining), timeout=self._timeout)
                except Exception as exc:
                    raise HistoryUnavailable(f"replay fetch: {exc}") from exc
                for msg in messages:
                    meta = msg.metadata
                    remaining = meta.num_pending
                    try:
                        event = parse_event(meta.sequence.stream, msg.data)
                    except MalformedEvent as exc:
                        log.warning("replay skips a malformed event: %s", exc)
                        continue
                    yield StoredEvent(event, meta.timestamp.astimezone(UTC))
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()


def utc_now() -> datetime:
    """The clock replay limits are measured with."""
    return datetime.now(UTC)
