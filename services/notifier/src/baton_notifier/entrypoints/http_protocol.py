"""uvicorn's httptools protocol with a cap on the size of a request's head.

httptools keeps a header until its end arrives and uvicorn sets no limit, so before any route
or token check runs, one unauthenticated request could make the gateway hold a header of
64 MB (measured: read whole, then answered 401 after 4.5 s). The head (request line and
headers) is counted as it arrives; past `max_head_bytes` the connection gets a 431 and is
closed. h11 has such a limit, but costs several times the CPU per request.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from baton_contracts import ErrorCode

DEFAULT_MAX_HEAD_BYTES = 64 * 1024


class BoundedHeadProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol`, refusing a request whose head grows past `max_head_bytes`.

    Bytes are counted while a head is awaited (from the connection's start, and again after
    each request ends) up to the blank line that ends it, so a body (bounded by the body
    limit) or WebSocket frames arriving in the same read are not counted.
    """

    def __init__(self, *args: Any, max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.max_head_bytes = max_head_bytes
        self._head_bytes: int | None = 0  # None: inside a request's body, not its head

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

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._head_bytes = 0

    def _refuse_head(self) -> None:
        self._head_bytes = None
        message = f"request line and headers are larger than {self.max_head_bytes} bytes"
        body = json.dumps(
            {"error": {"code": ErrorCode.TOO_LARGE.value, "message": message, "details": []}}
        ).encode()
        self.logger.warning("refused a request head over %d bytes", self.max_head_bytes)
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + body
        )
        self.transport.close()


def bounded_head_protocol(max_head_bytes: int) -> Any:
    """The protocol factory for `uvicorn.Config(http=...)`, with the given cap."""
    return functools.partial(BoundedHeadProtocol, max_head_bytes=max_head_bytes)
