"""Workflow events from JetStream: the process's one live consumer.

Stream sequence numbers are the `seq` clients see: stable, ordered, the same on every replica.
The live feed is an ordered push consumer of our own (ephemeral, no acks, idle heartbeats):
it tracks the last stream seq it handed on, and whenever it sees a gap or stops hearing from
the server (NATS restarted, consumer gone) it recreates the consumer just after that seq.

Deliveries are taken straight from the client's protocol parser (`DeliveryTap`), not through
nats-py's `Msg` objects, header parsing and per-subscription queue: that path cost about as
much CPU as the rest of a delivery to a socket. Heartbeats still take nats-py's path.

Per-user replay is `JetStreamHistory` (`history_jetstream.py`), and the stream and its
subjects are in `events_stream.py`; this module re-exports them, so callers keep importing
them from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, Header

from baton_messaging.broker import declare_streams
from baton_notifier.adapters.delivery_tap import DeliveryTap
from baton_notifier.adapters.events_stream import ALL_EVENTS, EVENTS_STREAM, user_subjects
from baton_notifier.adapters.history_jetstream import JetStreamHistory, utc_now
from baton_notifier.adapters.nats_link import NatsLink
from baton_notifier.domain.live import (
    CLOSE_INTERNAL,
    STREAM_RESET_REASON,
    MalformedEvent,
    parse_event,
)
from baton_notifier.domain.stream_position import epoch_of
from baton_notifier.service.live import LiveHub
from baton_telemetry.outages import Outage

__all__ = [
    "EVENTS_STREAM",
    "JetStreamHistory",
    "JetStreamLiveFeed",
    "ack_sequences",
    "user_subjects",
    "utc_now",
]

log = logging.getLogger(__name__)


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
        self._epoch: str | None = None  # the stream's: another one is a new stream
        self._next_cseq = 1
        self._heard = 0  # messages from the server: a count per message, the clock per heartbeat
        self._stopping = False
        self._outage = Outage()  # the failures in a row, on the event loop's clock
        self.delivered = 0

    async def wait_ready(self) -> None:
        """Return once the consumer exists, so every event published from now on arrives."""
        await self._ready.wait()

    def position(self) -> int | None:
        """`last_seq` once the consumer exists (None before): a session added now gets every
        event after it."""
        return self._last_seq if self._ready.is_set() else None

    def epoch(self) -> str | None:
        """The epoch of the stream `position` counts in, once the consumer exists (None before,
        or when the server reports no creation time)."""
        return self._epoch if self._ready.is_set() else None

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
                    self._failed(exc)
                    await asyncio.sleep(self._heartbeat)

    def _failed(self, exc: Exception) -> None:
        """Say the first failure in a row, then at most one line a minute while they go on:
        the feed retries every heartbeat, and a NATS outage of ten minutes was a hundred lines
        saying `nats: timeout` again (the broker's `lost the connection` line says why)."""
        now = asyncio.get_running_loop().time()
        say = self._outage.failed(now)
        if say == "first":
            log.warning("live feed: %s; resuming after seq %s", exc, self._last_seq)
        elif say == "again":
            log.warning(
                "live feed: still failing after %.0f s (%s); resuming after seq %s",
                self._outage.lasted(now),
                exc,
                self._last_seq,
            )
        else:
            log.debug("live feed: %s; resuming after seq %s", exc, self._last_seq)

    async def _consume(self) -> None:
        nc: Client = self._link.broker.connection
        js = nc.jetstream()
        await declare_streams(js, [EVENTS_STREAM])  # NATS may be back without its store
        stream = await js.stream_info(EVENTS_STREAM.name)
        epoch = None if stream.created is None else epoch_of(stream.created)
        if not self._ready.is_set():
            self._last_seq, self._epoch = stream.state.last_seq, epoch
        elif epoch != self._epoch or stream.state.last_seq < self._last_seq:
            self._stream_reset(stream.state.first_seq, stream.state.last_seq, epoch)
        inbox = nc.new_inbox()
        sub = await nc.subscribe(inbox, cb=self._on_message)
        tap = DeliveryTap.of(nc)
        tap.route(sub, self._on_delivery)
        consumer = None
        try:
            self._next_cseq = 1
            self._reset.clear()
            after = self._last_seq  # events may be handed on before add_consumer returns
            info = await js.add_consumer(EVENTS_STREAM.name, self._config(inbox))
            consumer = info.name
            if (over := self._outage.ended(asyncio.get_running_loop().time())) is not None:
                log.info("live feed: resumed after seq %s (%.1f s after it failed)", after, over[0])
            self._ready.set()
            await self._watch()
        finally:
            tap.unroute(sub)
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
            if consumer is not None and nc.is_connected:
                with contextlib.suppress(Exception):
                    await js.delete_consumer(EVENTS_STREAM.name, consumer)

    def _stream_reset(self, first_seq: int, last_seq: int, epoch: str | None) -> None:
        """The stream is not the one this feed read (NATS came back without its store, or it
        was deleted and declared again): its seqs start over. Waiting for them to pass the old
        position would hand on nothing for as long, so the feed starts at the new stream's
        first event, and every session ends: its client reconnects with its `last_seq`, which
        the new stream does not know (by its epoch, or by its number for a client that
        sends none), and is told to resync (reload state over HTTP)."""
        log.warning(
            "live feed: the events stream was reset (it was at seq %d, it is at %d now); "
            "reading it from its start, and ending the live sessions so that clients resync",
            self._last_seq,
            last_seq,
        )
        self._last_seq = max(min(first_seq - 1, last_seq), 0)
        self._epoch = epoch
        for session in self._hub.sessions():
            session.end(CLOSE_INTERNAL, STREAM_RESET_REASON)

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
            event = parse_event(stream_seq, data, self._epoch)
        except MalformedEvent as exc:
            log.warning("skipping a malformed event: %s", exc)
            return
        self.delivered += 1
        self._hub.deliver(event)
