"""uvicorn's websockets-sansio protocol, hardened against clients that flood or never read.

uvicorn takes a protocol class as `Config(ws=...)`; this subclass of its
`WebSocketsSansIOProtocol` (uvicorn 0.54, websockets 17) is the gateway's. It relies on these
of uvicorn's internals, and `tests/integration/notifier_live/test_hostile_sockets.py` fails if
an upgrade changes them:

- `pause_writing` / `resume_writing` (asyncio's flow control, which uvicorn keeps in
  `writable`), `read_paused` (set while the app has not taken a message) and `receive`, which
  resumes reading when the app's queue is empty.

What it changes:

- Reading pauses while the transport's write buffer is above its high-water mark. websockets
  answers each ping with a pong that uvicorn writes without waiting, so a client that sent
  pings and read nothing grew the gateway by about 28 MB/s until the keepalive ended it.
"""

from __future__ import annotations

from uvicorn._types import ASGIReceiveEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class GatewayWebSocketProtocol(WebSocketsSansIOProtocol):
    """`WebSocketsSansIOProtocol` that reads nothing while its writes are backed up."""

    def pause_writing(self) -> None:
        """The client is not taking what is written: stop reading what it sends, too."""
        super().pause_writing()
        self._hold_reading()

    def resume_writing(self) -> None:
        """Written data drained: read again, unless the app has not taken a message yet."""
        super().resume_writing()
        if not self.read_paused and not self.transport.is_closing():
            self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._hold_reading()  # the read may have written enough pongs to pause writing

    async def receive(self) -> ASGIReceiveEvent:
        message = await super().receive()
        self._hold_reading()  # uvicorn resumes reading once the app took every message
        return message

    def _hold_reading(self) -> None:
        if not self.writable.is_set() and not self.transport.is_closing():
            self.transport.pause_reading()
