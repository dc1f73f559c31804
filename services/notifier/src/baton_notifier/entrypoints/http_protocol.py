"""uvicorn's httptools protocol with a cap on the size of a request's head, and limits on
how long a request may take to arrive and a response may wait for its client to read.

httptools keeps a header until its end arrives and uvicorn sets no limit, so before any route
or token check runs, one unauthenticated request could make the gateway hold a header of
64 MB (measured: read whole, then answered 401 after 4.5 s). The head (request line and
headers) is counted as it arrives; past `max_head_bytes` the connection gets a 431 and is
closed. h11 has such a limit, but costs several times the CPU per request.

A response whose client stops reading (an SSE stream, above all: it never ends by itself)
is aborted after `write_stall` seconds without progress (`write_stall.py`).
"""

from __future__ import annotations

import asyncio
import functools
import sys
from typing import Any

from fastapi.responses import JSONResponse
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from baton_contracts import ErrorCode
from baton_notifier.entrypoints.write_stall import (
    WRITE_STALL_SECONDS,
    WriteStallWatch,
    give_up_unacknowledged,
)

DEFAULT_MAX_HEAD_BYTES = 64 * 1024
READ_TIMEOUT_SECONDS = 30.0
"""A request (its head and body) must have arrived this long after the connection opened, or
after the previous response: an idle connection, a head or a body sent a byte at a time, or a
chunked body that never ends is answered 408 and closed then. uvicorn only times out the
pause between two requests, so connections that sent nothing held the gateway's file
descriptors until none was left, and no one could connect."""


class BoundedHeadProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol`, refusing a request whose head grows past `max_head_bytes`.

    Bytes are counted while a head is awaited (from the connection's start, and again after
    each request ends) up to the blank line that ends it, so a body (bounded by the body
    limit) or WebSocket frames arriving in the same read are not counted.
    """

    def __init__(
        self,
        *args: Any,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
        read_timeout: float = READ_TIMEOUT_SECONDS,
        write_stall: float = WRITE_STALL_SECONDS,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.max_head_bytes = max_head_bytes
        self.read_timeout = read_timeout
        self.write_stall = WriteStallWatch(write_stall, self.logger)
        self._head_bytes: int | None = 0  # None: inside a request's body, not its head
        self._read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        """Start the wait for the first request (`READ_TIMEOUT_SECONDS`); a client that stops
        acknowledging what is sent to it is given up on after `write_stall` too."""
        super().connection_made(transport)
        give_up_unacknowledged(transport, self.write_stall.seconds)
        self._arm_read_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the waits with the connection."""
        self._stop_read_timer()
        self.write_stall.stop()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        """The client is not reading: an SSE stream's writer waits, for `write_stall` at most."""
        super().pause_writing()
        self.write_stall.start(self.transport)

    def resume_writing(self) -> None:
        """The client read what was buffered: the writer goes on."""
        super().resume_writing()
        self.write_stall.stop()

    def on_response_complete(self) -> None:
        """Start the wait for the next request (keep-alive closes one that stays idle)."""
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:  # a pipelined one is here
            self._arm_read_timer()

    def _arm_read_timer(self) -> None:
        self._stop_read_timer()
        self._read_timer = self.loop.call_later(self.read_timeout, self._read_timed_out)

    def _stop_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and cycle.response_started:
            self.transport.abort()  # answered early, and the body still dribbles in
            return
        self.logger.warning(
            "closed a connection whose request did not arrive within %gs", self.read_timeout
        )
        self.transport.write(
            b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._head_bytes is not None:
            end = data.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else end + 4
            if self._head_bytes > self.max_head_bytes:
                self._refuse_head()
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._head_bytes = None
        super().on_headers_complete()
        if self.parser.should_upgrade():
            self._stop_read_timer()  # a WebSocket: its own protocol and keepalive take over

    def on_message_complete(self) -> None:
        self._stop_read_timer()  # the request arrived whole: the app answers it
        super().on_message_complete()
        self._head_bytes = 0

    def _refuse_head(self) -> None:
        self._head_bytes = None
        message = f"request line and headers are larger than {self.max_head_bytes} bytes"
        self.logger.warning("refused a request head over %d bytes", self.max_head_bytes)
        self._close_with(b"431 Request Header Fields Too Large", ErrorCode.TOO_LARGE.value, message)

    def send_400_response(self, msg: str) -> None:
        """The 400 for a request httptools cannot read (a `Content-Length` that is no number
        or given twice, a body longer than it said, whose rest reads as no request), with the
        common error body, not uvicorn's plain text "Invalid HTTP request received."."""
        # uvicorn calls this only from its `except httptools.HttpParserError:`, so the
        # exception being handled says why (`Invalid character in Content-Length`).
        why = sys.exc_info()[1]
        reason = str(why) if why is not None else msg
        field = "header.content-length" if "content-length" in reason.lower() else None
        message = f"the request is not valid HTTP/1.1: {reason}"
        self._close_with(b"400 Bad Request", "bad_request", message, field)

    def _close_with(self, status: bytes, code: str, message: str, field: str | None = None) -> None:
        """Answer `status` with the common error body (one detail when `field` is known), and
        close: what follows on the connection cannot be read as a request."""
        self.transport.write(error_response(status, code, message, field))
        self.transport.close()


def error_response(status: bytes, code: str, message: str, field: str | None = None) -> bytes:
    """A whole HTTP/1.1 response with the common error body, saying the connection closes."""
    details = [] if field is None else [{"field": field, "message": message}]
    error = {"code": code, "message": message, "details": details}
    # Written as every route's JSONResponse writes its body: compact, UTF-8 kept as it is.
    body = JSONResponse({"error": error}).body
    return (
        b"HTTP/1.1 " + status + b"\r\n"
        b"content-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n"
        b"connection: close\r\n\r\n" + body
    )


def bounded_head_protocol(
    max_head_bytes: int,
    read_timeout: float = READ_TIMEOUT_SECONDS,
    write_stall: float = WRITE_STALL_SECONDS,
) -> Any:
    """The protocol factory for `uvicorn.Config(http=...)`, with the given cap and waits."""
    return functools.partial(
        BoundedHeadProtocol,
        max_head_bytes=max_head_bytes,
        read_timeout=read_timeout,
        write_stall=write_stall,
    )
