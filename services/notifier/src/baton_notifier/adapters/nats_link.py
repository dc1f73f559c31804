"""The gateway's one NATS connection: connects in the background, forever, and sends requests."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from faststream.exceptions import IncorrectState
from faststream.nats import NatsBroker
from pydantic import BaseModel

from baton_contracts import Command, ErrorCode, Query, RemoteError
from baton_messaging.broker import start_broker
from baton_messaging.requests import no_responders, replica_gone, request, request_json
from baton_messaging.resending import request_again_while_gone, request_json_again_while_gone
from baton_notifier.service.ports import Again

log = logging.getLogger(__name__)

STOP_TIMEOUT_SECONDS = 2.0
"""How long the stop waits for the broker to drain its subscriptions and close."""
CLOSE_TIMEOUT_SECONDS = 1.0
"""How long it then waits for a plain close of a connection that did not drain. Both together
stay inside what `baton up` allows a service past its stop grace before SIGKILL (5 s), after
the gateway's second for the 503s of the requests its stop cancelled."""


GONE_FOR = 10.0
"""How long a request sent with `resend_after` (or `again`) is sent again while no replica
takes it, or the one that took it stopped before answering: a restart's time. A service down
for longer is answered 503 then, not at the end of the request's whole timeout."""
GONE_WHEN = {Again.UNSENT: no_responders, Again.GONE: replica_gone}
"""Which `unavailable` answers mean that nothing was done, for each `Again`."""


class NatsLink:
    """Owns the broker: `start` returns at once and the broker connects whenever NATS is up."""

    def __init__(
        self,
        broker: NatsBroker,
        stop_timeout: float = STOP_TIMEOUT_SECONDS,
        close_timeout: float = CLOSE_TIMEOUT_SECONDS,
    ) -> None:
        self.broker = broker
        self._stop_timeout = stop_timeout
        self._close_timeout = close_timeout
        self._connecting: asyncio.Task[None] | None = None

    @property
    def is_connected(self) -> bool:
        """True while the client holds a live connection to a NATS server."""
        try:
            return bool(self.broker.connection.is_connected)
        except IncorrectState:
            return False

    async def start(self) -> None:
        """Begin connecting; the broker's client retries until NATS answers, so never raise here."""
        if self._connecting is None:
            log.info("connecting to NATS; retrying in the background until it answers")
            self._connecting = asyncio.create_task(self._connect(), name="notifier-nats-connect")

    async def wait_started(self) -> None:
        """Wait until the first connection is made and every responder is subscribed."""
        if self._connecting is None:
            raise RuntimeError("NatsLink.start() was not called")
        await asyncio.shield(self._connecting)

    async def _connect(self) -> None:
        try:
            await start_broker(self.broker)
        except Exception:
            log.exception("starting the NATS broker failed; /health stays 503")
            raise
        log.info("connected to NATS")

    async def request(
        self, message: Query | Command, *, timeout: float, again: Again = Again.NEVER
    ) -> BaseModel:
        """The owner's reply; `UNAVAILABLE` at once when there is no connection to send on.
        Sent again while nothing was done as `again` says (a restart), within `timeout`."""
        if not self.is_connected:
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "the gateway is not connected to NATS")
        if again is Again.NEVER:
            return await request(self.broker, message, timeout=timeout)
        return await request_again_while_gone(
            self.broker, message, timeout=timeout, retry_for=GONE_FOR, gone=GONE_WHEN[again]
        )

    async def request_json(
        self,
        message: Query | Command,
        *,
        timeout: float,
        resend_after: float | None = None,
        again: Again = Again.NEVER,
    ) -> bytes:
        """The owner's reply as the JSON it sent (`request_json`); errors as `request`'s. With
        `resend_after`, sent again while unanswered, within `timeout`, and while no replica
        takes it (a restart), for up to `GONE_FOR` (`request_json_again_while_gone`): about
        20 us more of the gateway's CPU per request (a task per send, and the wait on them)."""
        if not self.is_connected:
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "the gateway is not connected to NATS")
        if resend_after is not None:
            again = Again.GONE
        if again is Again.NEVER:
            return await request_json(self.broker, message, timeout=timeout)
        return await request_json_again_while_gone(
            self.broker,
            message,
            timeout=timeout,
            retry_for=GONE_FOR,
            resend_after=resend_after,
            gone=GONE_WHEN[again],
        )

    async def stop(self) -> None:
        """Stop connecting, drain subscriptions when connected, and close the client: within
        `stop_timeout` + `close_timeout` seconds, even when the connection hangs."""
        if self._connecting is not None and not self._connecting.done():
            self._connecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._connecting
        try:
            await asyncio.wait_for(self.broker.stop(), self._stop_timeout)
        except Exception as exc:  # a client stuck reconnecting cannot drain; close it instead
            log.warning("NATS broker did not stop cleanly (%s); closing the connection", exc)
            try:
                await asyncio.wait_for(self.broker.connection.close(), self._close_timeout)
            except Exception as err:  # the process exits anyway: its socket closes with it
                log.warning("NATS connection did not close (%s); leaving it to the exit", err)
