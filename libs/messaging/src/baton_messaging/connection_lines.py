"""What a service's log says as its NATS connection goes away and comes back.

FastStream says only `Connection broken with UnexpectedEOF()` with the exception under it, and
nothing once the client has reconnected: an operator could not tell from the log whether a
service was still cut off. These lines name the server and say both ends of the outage."""

from __future__ import annotations

import logging
import time

from faststream.exceptions import IncorrectState
from faststream.nats import NatsBroker
from nats.aio.client import Client
from nats.errors import UnexpectedEOF

from baton_messaging.nats_url import shown_nats_url


class ConnectionLines:
    """`disconnected` and `reconnected`, the nats-py callbacks of one broker's client: a
    WARNING when the connection is lost, an INFO when it is back, each naming the server (its
    password hidden). A connection the service closes itself (its stop) says nothing."""

    def __init__(self, logger: logging.Logger, configured_url: str) -> None:
        self._logger = logger
        self._configured_url = configured_url
        self._broker: NatsBroker | None = None
        self._lost_at: float | None = None

    def watch(self, broker: NatsBroker) -> None:
        """The broker whose client calls back: the callbacks are given before it exists."""
        self._broker = broker

    async def disconnected(self) -> None:
        """nats-py's `disconnected_cb`: at a lost connection, and at a close."""
        client = self._client()
        if client is None or client.is_closed:
            return
        self._lost_at = time.monotonic()
        self._logger.warning(
            "lost the connection to NATS at %s; reconnecting until it answers",
            self._server_of(client),
        )

    async def reconnected(self) -> None:
        """nats-py's `reconnected_cb`: the client is connected again, subscriptions replayed."""
        client = self._client()
        url = client.connected_url if client is not None else None
        shown = shown_nats_url(url.geturl()) if url is not None else self._shown_configured()
        lost_at, self._lost_at = self._lost_at, None
        away = f" after {time.monotonic() - lost_at:.1f} s" if lost_at is not None else ""
        self._logger.info("reconnected to %s%s", shown, away)

    def _client(self) -> Client | None:
        if self._broker is None:
            return None
        try:
            return self._broker.connection
        except IncorrectState:  # the broker let go of its client (it is stopping)
            return None

    def _server_of(self, client: Client) -> str:
        # `connected_url` is None once the connection is lost; nats-py still holds the server
        # it lost as `_current_server` until it picks the next one to try.
        server = getattr(client, "_current_server", None)
        uri = getattr(server, "uri", None)
        if uri is None:
            return self._shown_configured()
        return shown_nats_url(uri.geturl())

    def _shown_configured(self) -> str:
        return shown_nats_url(self._configured_url)


class EndOfStreamLines(logging.Filter):
    """Drops FastStream's `Connection broken with UnexpectedEOF()` (a WARNING with the
    exception under it): the server went away, which `ConnectionLines` says in one line
    naming it. Other broken-connection errors keep their line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (
            isinstance(exc, UnexpectedEOF)
            and record.getMessage().startswith("Connection broken with ")
        )
