"""The one way a service builds, declares and starts its FastStream NATS broker."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable

from faststream.nats import NatsBroker
from faststream.nats.opentelemetry import NatsTelemetryMiddleware
from nats.aio.client import Client
from nats.js import JetStreamManager
from nats.js.api import RetentionPolicy, StreamConfig
from nats.js.errors import APIError, NotFoundError, ServiceUnavailableError
from opentelemetry.trace import TracerProvider

from baton_contracts import StreamSpec
from baton_messaging.connection_lines import ConnectionLines, EndOfStreamLines
from baton_messaging.consumers import declare_durables
from baton_messaging.settings import MessagingSettings, ServerUnfit

logger = logging.getLogger(__name__)

RECONNECT_WAIT_SECONDS = 0.5
"""Short, so a service is back soon after NATS is; reconnect attempts never stop."""

PING_INTERVAL_SECONDS = 5.0
MAX_OUTSTANDING_PINGS = 2
"""A server that stops answering without closing the connection (a hung process, a host gone
without a reset, a network partition) is given up after this many pings went unanswered, 10 to
15 s after it froze, and reconnected to (or another server of the cluster). nats-py's defaults,
a ping every 120 s, take 6 minutes, all the while saying connected: health checks stay green
while every request times out."""


class StreamDeclarationError(RuntimeError):
    """JetStream refused to create or update a stream; the message names it and the reason."""


MIN_NATS_VERSION = (2, 10)
"""The oldest NATS server a service starts on: a durable consumer filtered on several
subjects (`filter_subjects`) is 2.10's. An older server keeps the consumer and drops the
filters, and the consumer then gets every event of the stream."""


def check_server(
    version: tuple[int, int, int] | None, max_payload: int, min_payload: int = 0
) -> None:
    """ServerUnfit when a server of this `version` (None: it did not say) and `max_payload`
    cannot serve a service that publishes messages of up to `min_payload` bytes."""
    if version is not None and version[:2] < MIN_NATS_VERSION:
        raise ServerUnfit(
            f"BATON_NATS_URL: the NATS server is version {'.'.join(map(str, version))}; Baton "
            f"needs {'.'.join(map(str, MIN_NATS_VERSION))} or later, with JetStream"
        )
    if max_payload < min_payload:
        # The relay publishes in order: the first event over the limit would hold every
        # later one of every user behind it.
        raise ServerUnfit(
            f"BATON_NATS_URL: the NATS server takes messages of at most {max_payload:,} "
            f"bytes (its max_payload), and this service publishes up to {min_payload:,}: "
            f"set max_payload to at least {min_payload:,} in the server's configuration"
        )


class _TaskCallbackLines(logging.Filter):
    """FastStream's `callback for Task-12 is being executed...`, at INFO, once for each of a
    subscriber's tasks as it ends: four lines or more at every stop, which say nothing an
    operator can use (the service's own stop lines do)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (
            message.startswith("callback for ") and message.endswith(" is being executed...")
        )


_QUIET_TASK_CALLBACKS = _TaskCallbackLines()
_QUIET_END_OF_STREAM = EndOfStreamLines()


def build_broker(
    settings: MessagingSettings,
    service: str,
    *,
    tracer_provider: TracerProvider | None = None,
) -> NatsBroker:
    """A broker named for `service` that reconnects forever, says in its log when it lost
    NATS and when it is back, and carries W3C trace context."""
    logger = _broker_logger(service)
    lines = ConnectionLines(logger, settings.nats_url)
    broker = NatsBroker(
        settings.nats_url,
        name=service,
        allow_reconnect=True,
        max_reconnect_attempts=-1,
        # nats-py sleeps for these values, so floats work despite the `int` hints.
        reconnect_time_wait=RECONNECT_WAIT_SECONDS,  # type: ignore[arg-type]
        connect_timeout=settings.connect_timeout_seconds,  # type: ignore[arg-type]
        ping_interval=PING_INTERVAL_SECONDS,  # type: ignore[arg-type]
        max_outstanding_pings=MAX_OUTSTANDING_PINGS,
        disconnected_cb=lines.disconnected,
        reconnected_cb=lines.reconnected,
        middlewares=[NatsTelemetryMiddleware(tracer_provider=tracer_provider)],
        logger=logger,
        # Per-message "Received"/"Processed" lines: DEBUG, or every request costs two log writes.
        log_level=logging.DEBUG,
        description=f"Baton {service} service",
    )
    lines.watch(broker)
    return broker


def _broker_logger(service: str) -> logging.Logger:
    logger = logging.getLogger(f"baton.{service}.messaging")
    # The same filter again changes nothing.
    logger.addFilter(_QUIET_TASK_CALLBACKS)
    logger.addFilter(_QUIET_END_OF_STREAM)
    return logger


async def start_broker(
    broker: NatsBroker,
    streams: Iterable[StreamSpec] = (),
    *,
    flush_timeout: float = 5.0,
    min_payload: int = 0,
) -> None:
    """Connect, declare `streams` and the broker's durables, start every subscriber, and
    flush so they are live.

    Raises `ServerUnfit` when the server is older than `MIN_NATS_VERSION`, its
    `max_payload` is below `min_payload` (the largest message the service publishes), or it
    runs without JetStream."""
    nc = await broker.connect()
    check_server(_version_of(nc), nc.max_payload, min_payload)
    try:
        await declare_streams(nc.jetstream(), streams)
    except StreamDeclarationError as exc:
        if _no_jetstream(exc.__cause__):
            raise ServerUnfit(f"BATON_NATS_URL: {NO_JETSTREAM}") from exc
        raise
    await declare_durables(nc.jetstream(), broker)
    await broker.start()
    # SUBs sit in nats-py's pending buffer, and its flush() writes PING straight to the socket,
    # ahead of that buffer; the first flush wakes the flusher that sends the SUBs, the second
    # PING follows them, so its PONG proves the server holds every subscription.
    for _ in range(2):
        await nc.flush(timeout=math.ceil(flush_timeout))


def _version_of(nc: Client) -> tuple[int, int, int] | None:
    """The connected server's version; None when it says none a version can be read from."""
    version = nc.connected_server_version
    try:
        return version.major, version.minor, version.patch
    except ValueError:
        return None


NO_JETSTREAM = (
    "the NATS server has no JetStream (nothing answers its JetStream API); Baton needs it: "
    "start nats-server with -js, or give its configuration a jetstream block"
)


def _no_jetstream(exc: BaseException | None) -> bool:
    """A JetStream request nobody answered: the server runs without JetStream. (A JetStream
    that is there but unavailable for a moment, in a cluster, answers 503 with a reason.)"""
    return isinstance(exc, ServiceUnavailableError) and exc.description is None


async def declare_streams(js: JetStreamManager, specs: Iterable[StreamSpec]) -> None:
    """Create each stream, or update it when it exists with other settings (idempotent)."""
    for spec in specs:
        try:
            await _declare_stream(js, spec)
        except APIError as exc:
            reason = NO_JETSTREAM if _no_jetstream(exc) else exc.description
            raise StreamDeclarationError(
                f"stream {spec.name} ({', '.join(spec.subjects)}): {reason}"
            ) from exc


async def _declare_stream(js: JetStreamManager, spec: StreamSpec) -> None:
    wanted = stream_config(spec)
    try:
        info = await js.stream_info(spec.name)
    except NotFoundError:
        await js.add_stream(wanted)
        logger.info("declared stream %s on %s", spec.name, ", ".join(spec.subjects))
        return
    # Keep the subjects the stream captures already: during a rolling upgrade a process of an
    # older release (re)starts beside newer ones, and dropping the subjects it does not know
    # (a newer event type) would leave every newer publisher of them without a stream.
    kept = sorted(set(info.config.subjects or []) | set(spec.subjects))
    wanted.subjects = kept
    if not _same_settings(info.config, wanted):
        await js.update_stream(wanted)
        logger.info("updated stream %s on %s", spec.name, ", ".join(kept))


def stream_config(spec: StreamSpec) -> StreamConfig:
    """The JetStream configuration a contract `StreamSpec` stands for."""
    return StreamConfig(
        name=spec.name,
        subjects=list(spec.subjects),
        retention=RetentionPolicy(spec.retention.value),
        max_age=spec.max_age_seconds,
        duplicate_window=spec.duplicate_window_seconds,
    )


def _same_settings(have: StreamConfig, want: StreamConfig) -> bool:
    return (
        sorted(have.subjects or []) == sorted(want.subjects or [])
        and have.retention == want.retention
        and math.isclose(have.max_age or 0.0, want.max_age or 0.0)
        and math.isclose(have.duplicate_window or 0.0, want.duplicate_window or 0.0)
    )
