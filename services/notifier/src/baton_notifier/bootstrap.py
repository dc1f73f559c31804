"""The one place that builds the notifier: adapters, the service layer, and the HTTP app."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from fastapi import FastAPI
from faststream.nats import NatsBroker
from opentelemetry.trace import TracerProvider

from baton_messaging.broker import build_broker
from baton_messaging.settings import MessagingSettings
from baton_notifier.adapters.live_jetstream import JetStreamHistory, JetStreamLiveFeed, utc_now
from baton_notifier.adapters.nats_link import NatsLink
from baton_notifier.entrypoints.console import install_console
from baton_notifier.entrypoints.http import HttpDeps, create_app
from baton_notifier.entrypoints.live_routes import LiveDeps, install_live
from baton_notifier.entrypoints.responders import SERVICE, register_responders
from baton_notifier.service.forwarding import Forwarder
from baton_notifier.service.live import LiveEvents, LiveHub
from baton_notifier.service.ports import Connection, Requester
from baton_notifier.settings import NotifierSettings

log = logging.getLogger("baton.notifier")


@dataclass
class Notifier:
    """A built notifier: the HTTP app, and the NATS link to start and stop around it."""

    settings: NotifierSettings
    app: FastAPI
    forwarder: Forwarder
    link: NatsLink | None
    live: LiveEvents | None = None
    live_feed: JetStreamLiveFeed | None = None

    async def start(self) -> None:
        """Start connecting to NATS in the background (never blocks on NATS being up)."""
        if self.link is not None:
            await self.link.start()
        if self.live_feed is not None:
            await self.live_feed.start()

    def end_live(self) -> None:
        """End every WebSocket/SSE session (clients reconnect with their last seq)."""
        if self.live is not None:
            self.live.end_all()

    async def close_live(self, within: float) -> None:
        """`end_live`, then wait at most `within` seconds for every session to close with its
        own code: a gateway that stopped at once had uvicorn close the WebSockets first, with
        1012 and no reason, where the gateway says 1001 `gateway stopping; reconnect with
        last_seq`."""
        self.end_live()
        if self.live is not None and not await self.live.closed(within):
            log.warning("stopping: live sessions still open after %.1f s; closing them", within)

    async def stop(self) -> None:
        """End live sessions, stop the live feed, close the NATS connection."""
        self.end_live()
        if self.live_feed is not None:
            await self.live_feed.stop()
        if self.link is not None:
            await self.link.stop()


def messaging_broker(
    settings: MessagingSettings, tracer_provider: TracerProvider | None = None
) -> NatsBroker:
    """The notifier's broker with its responders registered (also what AsyncAPI docs read)."""
    broker = build_broker(settings, SERVICE, tracer_provider=tracer_provider)
    return register_responders(broker)


def build(
    settings: NotifierSettings,
    *,
    requester: Requester | None = None,
    connection: Connection | None = None,
    broker: NatsBroker | None = None,
    tracer_provider: TracerProvider | None = None,
) -> Notifier:
    """Wire the notifier; tests pass fakes for `requester`/`connection` or a real NATS URL."""
    link = None
    if requester is None or connection is None:
        messaging = MessagingSettings(nats_url=settings.nats_url)
        link = NatsLink(broker or messaging_broker(messaging, tracer_provider))
    forwarder = Forwarder(
        requester or _required(link),
        settings.request_timeout_seconds,
        slow_timeout=settings.chat_timeout_seconds,
        resend_after=settings.chat_resend_seconds,
    )
    deps = HttpDeps(
        jwt_secret=settings.jwt_secret,
        forwarder=forwarder,
        requester=requester or _required(link),
        connection=connection or _required(link),
        max_body_bytes=settings.max_body_bytes,
        tracer_provider=tracer_provider,
        health_services=settings.health_services,
    )
    notifier = Notifier(settings=settings, app=create_app(deps), forwarder=forwarder, link=link)
    install_console(notifier.app, dev_sign_in=settings.dev_sign_in)
    if link is not None:
        _add_live_events(notifier, link)
    return notifier


def _add_live_events(notifier: Notifier, link: NatsLink) -> None:
    """`/ws` and `/api/events`, fed by one JetStream consumer for the whole process."""
    settings = notifier.settings
    hub = LiveHub()
    notifier.live_feed = JetStreamLiveFeed(link, hub, heartbeat=settings.live_heartbeat_seconds)
    notifier.live = LiveEvents(
        hub,
        notifier.live_feed,
        JetStreamHistory(link),
        queue_size=settings.live_queue_size,
        replay_max_age=timedelta(seconds=settings.live_replay_max_age_seconds),
        clock=utc_now,
        sessions_per_user=settings.live_sessions_per_user,
    )
    deps = LiveDeps(settings.jwt_secret, notifier.live, settings.live_keepalive_seconds)
    install_live(notifier.app, deps)


def _required(link: NatsLink | None) -> NatsLink:
    assert link is not None  # built above whenever a fake is missing
    return link
