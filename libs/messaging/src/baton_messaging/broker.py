"""The one way a service builds, declares and starts its FastStream NATS broker."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable

from faststream.nats import NatsBroker
from faststream.nats.opentelemetry import NatsTelemetryMiddleware
from nats.js import JetStreamManager
from nats.js.api import RetentionPolicy, StreamConfig
from nats.js.errors import APIError, NotFoundError
from opentelemetry.trace import TracerProvider
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_contracts import StreamSpec
from baton_messaging.consumers import declare_durables
from baton_messaging.nats_url import NatsUrl

logger = logging.getLogger(__name__)

RECONNECT_WAIT_SECONDS = 0.5
"""Short, so a service is back soon after NATS is; reconnect attempts never stop."""


class StreamDeclarationError(RuntimeError):
    """JetStream refused to create or update a stream; the message names it and the reason."""


class ServerTooSmall(ValueError):
    """The NATS server takes smaller messages (`max_payload`) than the service sends: named
    with `BATON_NATS_URL`, and the service stops as for a bad setting (waiting will not fix
    it, and a relay would hold every later event behind the first one the server refuses)."""


class MessagingSettings(BaseSettings):
    """NATS settings every service reads from `BATON_*` environment variables."""

    model_config = SettingsConfigDict(env_prefix="BATON_", extra="ignore")

    nats_url: NatsUrl = "nats://127.0.0.1:4222"
    request_timeout_seconds: float = Field(default=5.0, gt=0)
    connect_timeout_seconds: float = Field(default=2.0, gt=0)


def build_broker(
    settings: MessagingSettings,
    service: str,
    *,
    tracer_provider: TracerProvider | None = None,
) -> NatsBroker:
    """A broker named for `service` that reconnects forever and carries W3C trace context."""
    return NatsBroker(
        settings.nats_url,
        name=service,
        allow_reconnect=True,
        max_reconnect_attempts=-1,
        # nats-py sleeps for these values, so floats work despite the `int` hints.
        reconnect_time_wait=RECONNECT_WAIT_SECONDS,  # type: ignore[arg-type]
        connect_timeout=settings.connect_timeout_seconds,  # type: ignore[arg-type]
        middlewares=[NatsTelemetryMiddleware(tracer_provider=tracer_provider)],
        logger=logging.getLogger(f"baton.{service}.messaging"),
        # Per-message "Received"/"Processed" lines: DEBUG, or every request costs two log writes.
        log_level=logging.DEBUG,
        description=f"Baton {service} service",
    )


async def start_broker(
    broker: NatsBroker,
    streams: Iterable[StreamSpec] = (),
    *,
    flush_timeout: float = 5.0,
    min_payload: int = 0,
) -> None:
    """Connect, declare `streams` and the broker's durables, start every subscriber, and
    flush so they are live.

    Raises `ServerTooSmall` when the server's `max_payload` is below `min_payload`: the
    largest message the service publishes."""
    nc = await broker.connect()
    if nc.max_payload < min_payload:
        raise ServerTooSmall(
            f"BATON_NATS_URL: the NATS server takes messages of at most {nc.max_payload:,} "
            f"bytes (its max_payload), and this service publishes up to {min_payload:,}: "
            f"set max_payload to at least {min_payload:,} in the server's configuration"
        )
    await declare_streams(nc.jetstream(), streams)
    await declare_durables(nc.jetstream(), broker)
    await broker.start()
    # SUBs sit in nats-py's pending buffer, and its flush() writes PING straight to the socket,
    # ahead of that buffer; the first flush wakes the flusher that sends the SUBs, the second
    # PING follows them, so its PONG proves the server holds every subscription.
    for _ in range(2):
        await nc.flush(timeout=math.ceil(flush_timeout))


async def declare_streams(js: JetStreamManager, specs: Iterable[StreamSpec]) -> None:
    """Create each stream, or update it when it exists with other settings (idempotent)."""
    for spec in specs:
        try:
            await _declare_stream(js, spec)
        except APIError as exc:
            raise StreamDeclarationError(
                f"stream {spec.name} ({', '.join(spec.subjects)}): {exc.description}"
            ) from exc


async def _declare_stream(js: JetStreamManager, spec: StreamSpec) -> None:
    wanted = stream_config(spec)
    try:
        info = await js.stream_info(spec.name)
    except NotFoundError:
        await js.add_stream(wanted)
        logger.info("declared stream %s on %s", spec.name, ", ".join(spec.subjects))
        return
    if not _same_settings(info.config, wanted):
        await js.update_stream(wanted)
        logger.info("updated stream %s on %s", spec.name, ", ".join(spec.subjects))


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
