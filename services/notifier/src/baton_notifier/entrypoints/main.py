"""`python -m baton_notifier`: settings from the environment, NATS in the background, uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI
from opentelemetry.trace import TracerProvider

from baton_messaging.lifeline import watch_lifeline
from baton_messaging.log_lines import configure_logging
from baton_messaging.nats_url import shown_nats_url
from baton_messaging.process import run_on, tune_garbage_collector
from baton_messaging.setting_problems import settled
from baton_messaging.settings import MessagingSettings
from baton_notifier.bootstrap import Notifier, build, messaging_broker
from baton_notifier.domain.loopback import is_loopback
from baton_notifier.entrypoints.http_protocol import bounded_head_protocol
from baton_notifier.entrypoints.responders import SERVICE
from baton_notifier.entrypoints.server import GatewayServer
from baton_notifier.entrypoints.startup import NAME, checked_settings, inherited_sockets
from baton_notifier.entrypoints.write_stall import WRITE_STALL_SECONDS
from baton_notifier.entrypoints.ws_protocol import gateway_websocket_protocol
from baton_notifier.settings import NotifierSettings
from baton_telemetry import setup_telemetry, shutdown_telemetry

log = logging.getLogger("baton.notifier")

broker = messaging_broker(MessagingSettings.model_construct())
"""The notifier's FastStream broker as declared (not connected): `make docs` reads AsyncAPI here.
Built from the defaults, not the environment: importing this module must not fail on a bad
setting (`main` reports those, one line each)."""


class _Server(GatewayServer):
    """uvicorn, minus re-raising SIGTERM after a graceful stop (which would exit with 143)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


MAX_CLIENT_FRAME_BYTES = 64 * 1024
"""The largest WebSocket message a client may send to `/ws` (it only ever sends a small
`ping`); a larger one closes the connection with 1009. uvicorn's default is 16 MiB."""


def server_config(
    app: FastAPI, settings: NotifierSettings, *, write_stall: float = WRITE_STALL_SECONDS
) -> uvicorn.Config:
    """uvicorn's configuration for the gateway's app; `write_stall`: how long a client may
    leave what the gateway sends it unread before its connection is aborted."""
    return uvicorn.Config(
        app,
        host=settings.http_host,
        port=settings.http_port,
        log_level=settings.log_level.lower(),
        lifespan="off",
        log_config=None,  # uvicorn's records go through the root handler: time, level, logger
        # httptools, the C parser (several times less CPU per request than h11), with a cap
        # on the request head that httptools alone does not have.
        http=bounded_head_protocol(settings.max_header_bytes, write_stall=write_stall),
        # uvicorn's websockets-sansio (the least CPU per /ws frame of uvicorn's three, measured
        # against wsproto and the legacy websockets implementation), with the limits of
        # `ws_protocol` against clients that flood it or never read.
        ws=gateway_websocket_protocol(write_stall),
        ws_max_size=MAX_CLIENT_FRAME_BYTES,
        # What still runs then is cancelled and answered 503 (`GatewayServer`), so the stop
        # ends before `baton up`'s SIGKILL, 5 s later, would drop the connection unanswered.
        timeout_graceful_shutdown=settings.stop_grace_seconds,  # type: ignore[arg-type]
    )


def dev_sign_in_warning(settings: NotifierSettings) -> str | None:
    """What to tell an operator who turned dev sign-in on for a reachable address, or None.

    Browsers elsewhere are refused (the Host they send is not a loopback one), but any other
    client can send `Host: localhost`: on such an address anyone who reaches it is anyone.
    `baton up` never does this (it turns dev sign-in off off loopback); a container that must
    listen on 0.0.0.0 behind a port published on loopback may, so it is said, not refused.
    """
    if not settings.dev_sign_in or is_loopback(settings.http_host.strip("[]")):
        return None
    return (
        f"BATON_DEV_SIGN_IN is on while the gateway listens on {settings.http_host!r}, not a "
        "loopback address: any client that reaches it can mint a token for any user by "
        "sending a loopback Host header; turn it off unless only this machine can connect"
    )


async def serve(
    settings: NotifierSettings,
    tracer_provider: TracerProvider | None,
    sockets: list[socket.socket] | None = None,
    lifeline: int | None = None,
) -> None:
    """Run until SIGTERM/SIGINT, or until the `lifeline` pipe ends (`baton up` is gone). HTTP
    is served once NATS is connected, or once `nats_start_timeout_seconds` have passed without
    it (it then connects in the background, and requests needing it answer 503 meanwhile)."""
    if (warning := dev_sign_in_warning(settings)) is not None:
        log.warning(warning)
    notifier = build(settings, tracer_provider=tracer_provider)
    tune_garbage_collector()
    await notifier.start()
    try:
        server = _Server(server_config(notifier.app, settings), notifier.close_live)
        if lifeline is not None:

            def gone() -> None:
                log.warning("notifier: baton up, which started it, is gone; stopping")
                server.handle_exit(signal.SIGTERM, None)

            watch_lifeline(asyncio.get_running_loop(), lifeline, gone)
        if await _nats_first(notifier, settings, server):
            await server.serve(sockets=sockets)
    finally:
        await notifier.stop()
    log.info("notifier stopped")


STOP_POLL_SECONDS = 0.1
"""How often the wait for NATS looks whether a stop was asked (as uvicorn's own loop does)."""


async def _nats_first(notifier: Notifier, settings: NotifierSettings, server: _Server) -> bool:
    """Wait, at most `nats_start_timeout_seconds`, until NATS is connected; False when a stop
    came first. Serving before that answered the requests that had queued while the gateway
    (re)started `503 not connected to NATS` in the moment the connection takes; they wait in
    the listening socket's backlog instead (`BATON_HTTP_FD` keeps it open across restarts)."""
    if notifier.link is None:
        return True
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, server.handle_exit, sig, None)
    connecting = asyncio.ensure_future(notifier.link.wait_started())
    deadline = loop.time() + settings.nats_start_timeout_seconds
    try:
        while not server.should_exit:
            left = deadline - loop.time()
            if left <= 0:
                log.warning(
                    "NATS at %s did not answer within %g s; serving HTTP without it (503) "
                    "while connecting goes on in the background",
                    shown_nats_url(settings.nats_url),
                    settings.nats_start_timeout_seconds,
                )
                return True
            done, _ = await asyncio.wait({connecting}, timeout=min(left, STOP_POLL_SECONDS))
            if done:  # connected, or failed for good (the link logged why: 503 as before)
                return True
        log.info("notifier stopping before it was connected to NATS")
        return False
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if connecting.done() and not connecting.cancelled():
            connecting.exception()  # retrieved: the link has logged it
        connecting.cancel()  # the wait only: the connection itself goes on


def main() -> int:
    """Exit status 0 after a clean stop, 2 when settings are missing or invalid (the
    settings' own problems exit there, from `checked_settings`)."""
    settings, lifeline = checked_settings()  # `BATON_HTTP_FD` too: the socket is good
    sockets = inherited_sockets(settings)
    configure_logging(settings.log_level)
    provider = settled(NAME, lambda: setup_telemetry(SERVICE))
    try:
        run_on(settings.event_loop, serve(settings, provider, sockets, lifeline))
    finally:
        shutdown_telemetry(provider)
    return 0
