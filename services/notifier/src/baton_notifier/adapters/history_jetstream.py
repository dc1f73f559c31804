"""`JetStreamHistory`: one user's stored workflow events, read back for replay.

Each replay reads with a pull consumer of its own, filtered to the user (or one instance) and
starting just after the seq the client has; it reads the events stored when it began, and is
deleted when the read ends. Stream sequence numbers are the `seq` clients see, as in the live
feed (`live_jetstream.py`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator
from datetime import UTC, datetime

from nats.aio.client import Client
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from baton_notifier.adapters.events_stream import EVENTS_STREAM, user_subjects
from baton_notifier.adapters.nats_link import NatsLink
from baton_notifier.domain.live import MalformedEvent, StreamBounds, parse_event
from baton_notifier.domain.stream_position import epoch_of
from baton_notifier.service.live_ports import HistoryUnavailable, StoredEvent

# The logger replay has always written to (before it was split out of `live_jetstream`):
# log filters that select it by name keep seeing these lines.
log = logging.getLogger("baton_notifier.adapters.live_jetstream")


class JetStreamHistory:
    """Reads one user's stored events back with a short-lived pull consumer."""

    def __init__(self, link: NatsLink, *, batch: int = 32, timeout: float = 5.0) -> None:
        # A fetched batch is held until its last event is queued for the client: with 256 of
        # them (60 KB each) a replay to a client that reads nothing held 15 MB.
        self._link = link
        self._batch = batch
        self._timeout = timeout

    def _js(self) -> JetStreamContext:
        if not self._link.is_connected:
            raise HistoryUnavailable("not connected to NATS")
        nc: Client = self._link.broker.connection
        return nc.jetstream(timeout=self._timeout)

    async def bounds(self) -> StreamBounds:
        """The first and last seq the events stream holds now, and its epoch."""
        try:
            info = await self._js().stream_info(EVENTS_STREAM.name)
        except HistoryUnavailable:
            raise
        except Exception as exc:
            raise HistoryUnavailable(f"stream info: {exc}") from exc
        epoch = None if info.created is None else epoch_of(info.created)
        return StreamBounds(info.state.first_seq, info.state.last_seq, epoch)

    async def since(
        self, user_id: str, instance_id: str | None, after_seq: int, epoch: str | None = None
    ) -> AsyncGenerator[StoredEvent, None]:
        """The user's (instance's) events after `after_seq` stored right now, in order, their
        frames carrying `epoch`."""
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
                async for stored in self._read(js, info.name, remaining, epoch):
                    yield stored
        finally:
            with contextlib.suppress(Exception):
                await js.delete_consumer(EVENTS_STREAM.name, info.name)

    async def _read(
        self, js: JetStreamContext, consumer: str, remaining: int, epoch: str | None
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
                        event = parse_event(meta.sequence.stream, msg.data, epoch)
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
