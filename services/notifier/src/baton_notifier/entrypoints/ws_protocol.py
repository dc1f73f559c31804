"""uvicorn's websockets-sansio protocol, hardened against clients that flood or never read.

uvicorn takes a protocol class as `Config(ws=...)`; this subclass of its
`WebSocketsSansIOProtocol` (uvicorn 0.54, websockets 17) is the gateway's. It relies on these
of uvicorn's internals; `tests/integration/notifier_live/test_hostile_sockets.py` (each limit,
against a real gateway) and `tests/unit/notifier/test_ws_protocol.py` (every method it
overrides is still uvicorn's) fail if an upgrade changes them:

- `pause_writing` / `resume_writing` (asyncio's flow control, which uvicorn keeps in
  `writable`), `read_paused` (set while the app has not taken a message) and `receive`, which
  resumes reading when the app's queue is empty;
- `handle_cont` and `frames` (the fragments of the message being received), `close_sent`,
  `handle_parser_exception` (which sends the close frame websockets' `conn.fail` queued);
- `conn`, the websockets `ServerProtocol`, and its `parser` generator, `parser_exc` and
  `handshake_exc`; `handshake_initiated`, `handshake_complete`;
- `run_asgi`, `app`, `initial_response` (a denial response being sent);
- the keyword arguments uvicorn builds it with (`config`, `server_state`, `app_state`).

What it changes:

- Reading pauses while the transport's write buffer is above its high-water mark. websockets
  answers each ping with a pong that uvicorn writes without waiting, so a client that sent
  pings and read nothing grew the gateway by about 28 MB/s until the keepalive ended it.
- A message may come in at most `MAX_FRAGMENTS` frames, else the connection is closed with
  1009. websockets bounds a message's bytes (`ws_max_size`), not its frames, and uvicorn
  keeps every fragment: a message of endless empty continuation frames grew without limit.
- An upgrade websockets refuses (a request line or header over its 8 KiB, more than 128
  headers: all under the head's `max_head_bytes`, which httptools checked) is answered 431
  and closed. websockets queues its refusal and uvicorn never sends it: the client waited
  for ever, holding a file descriptor.
- A closed connection is freed at once. websockets' parser is a generator whose frame holds
  the `ServerProtocol` that holds it (and so does the error it stopped on, if any): a cycle
  of about 50 KB with permessage-deflate's zlib state, freed only by a full collection, which
  Baton's raised GC thresholds make rare (3,000 connections opened and closed took the
  gateway from 300 to 580 MB).
- A connection whose client takes nothing of its pending writes for `write_stall` seconds is
  aborted (`write_stall.py`): uvicorn closes a connection once its buffer is sent, so the
  connection of a client that stopped reading stayed open for ever, closing.
"""

from __future__ import annotations

import functools
from typing import Any

from uvicorn._types import ASGIReceiveCallable, ASGIReceiveEvent, Scope
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import HeaderLineTooLong, RequestLineTooLong, TooManyHeaders
from websockets.frames import CloseCode, Frame
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS

from baton_notifier.entrypoints.http_protocol import error_response
from baton_notifier.entrypoints.write_stall import WRITE_STALL_SECONDS, WriteStallWatch

LIMITS = (
    f"a WebSocket upgrade's request line and each of its headers must be at most "
    f"{MAX_LINE_LENGTH} bytes, and it may have at most {MAX_NUM_HEADERS} headers: /ws takes "
    "only token, last_seq, epoch and instance_id (send the token as a subprotocol)"
)
"""websockets' own limits on the request it upgrades, under the head's `max_head_bytes`."""

MAX_FRAGMENTS = 64
"""The most frames one client message may come in (a client only ever sends a small `ping`;
browsers send it in one)."""


class GatewayWebSocketProtocol(WebSocketsSansIOProtocol):
    """`WebSocketsSansIOProtocol` that reads nothing while its writes are backed up, and
    takes a message in at most `max_fragments` frames."""

    max_fragments = MAX_FRAGMENTS

    def __init__(self, *args: Any, write_stall: float = WRITE_STALL_SECONDS, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.write_stall = WriteStallWatch(write_stall, self.logger)

    def connection_lost(self, exc: Exception | None) -> None:
        """Close as uvicorn does, then break websockets' parser cycle (see the module)."""
        self.write_stall.stop()
        super().connection_lost(exc)
        self.conn.parser.close()
        self.conn.parser_exc = None

    def pause_writing(self) -> None:
        """The client is not taking what is written: stop reading what it sends, too."""
        super().pause_writing()
        self._hold_reading()
        self.write_stall.start(self.transport)

    def resume_writing(self) -> None:
        """Written data drained: read again, unless the app has not taken a message yet."""
        super().resume_writing()
        self.write_stall.stop()
        if not self.read_paused and not self.transport.is_closing():
            self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.handshake_initiated and self.conn.handshake_exc is not None:
            self._refuse_handshake()
            return
        self._hold_reading()  # the read may have written enough pongs to pause writing

    def _refuse_handshake(self) -> None:
        """Answer an upgrade websockets could not read, and close. It queues a 414 or 431 (or
        nothing, for a request it cannot parse) that uvicorn never sends: the client waited
        for ever, holding one of the gateway's file descriptors."""
        exc = self.conn.handshake_exc
        self.logger.warning("refused a WebSocket upgrade: %s", exc)
        if isinstance(exc, RequestLineTooLong | HeaderLineTooLong | TooManyHeaders):
            status, code, message = b"431 Request Header Fields Too Large", "too_large", LIMITS
        else:
            status, code = b"400 Bad Request", "bad_request"
            message = f"the WebSocket upgrade is not valid HTTP/1.1: {exc}"
        self.handshake_complete = True
        self.close_sent = True
        self.transport.write(error_response(status, code, message))
        self.transport.close()

    async def run_asgi(self) -> None:
        """Run the app as uvicorn does; after a denial response (`/ws` is the one WebSocket
        route: any other path is answered 404 so), mark the handshake done, which uvicorn
        forgets to, logging `ASGI callable returned without completing handshake.` as an
        ERROR for each. One wrapper per connection: the app's `send` stays uvicorn's own."""
        app = self.app

        async def app_then_mark(scope: Scope, receive: ASGIReceiveCallable, send: Any) -> None:
            await app(scope, receive, send)
            if self.initial_response is not None and self.close_sent:
                self.handshake_complete = True

        self.app = app_then_mark
        try:
            await super().run_asgi()
        finally:
            self.app = app  # the wrapper holds this protocol: no cycle left behind

    async def receive(self) -> ASGIReceiveEvent:
        message = await super().receive()
        self._hold_reading()  # uvicorn resumes reading once the app took every message
        return message

    def handle_cont(self, event: Frame) -> None:
        if len(self.frames) < self.max_fragments:
            super().handle_cont(event)
        elif not self.close_sent:  # once closing, the rest of this read is dropped
            self.logger.warning(
                "closed a WebSocket whose message came in more than %d frames", self.max_fragments
            )
            self.frames = []
            self.conn.fail(
                CloseCode.MESSAGE_TOO_BIG, f"message in more than {self.max_fragments} frames"
            )
            self.handle_parser_exception()

    def _hold_reading(self) -> None:
        if not self.writable.is_set() and not self.transport.is_closing():
            self.transport.pause_reading()


def gateway_websocket_protocol(write_stall: float = WRITE_STALL_SECONDS) -> Any:
    """The protocol factory for `uvicorn.Config(ws=...)`, with the given wait."""
    return functools.partial(GatewayWebSocketProtocol, write_stall=write_stall)
