"""The first thing every request body meets: refused when compressed (415) or over the byte
limit (413), before any route reads it and without buffering it.

One pure ASGI middleware for every route, so no route that reads a body can forget either
check, and a request carries one more layer, not two.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baton_contracts import ErrorCode, ErrorDetail
from baton_notifier.domain.errors import UNSUPPORTED_MEDIA_TYPE, HttpErrorBody, HttpErrorResponse
from baton_notifier.domain.media import IDENTITY, coding_refusal


class BodyTooLarge(HTTPException):
    """Raised from `receive` once a streamed body passes the limit.

    An `HTTPException` so FastAPI's body parsing re-raises it instead of turning it into a 400.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))
        self.limit = limit


def too_large_message(limit: int) -> str:
    """What a caller is told when its body is over the limit."""
    return f"request body is larger than the limit of {limit} bytes"


def too_large_response(limit: int) -> JSONResponse:
    """The 413 with the common error body, naming `body` as every refusal of it does."""
    detail = ErrorDetail(field="body", message=f"is larger than the limit of {limit} bytes")
    body = HttpErrorResponse(
        error=HttpErrorBody(
            code=ErrorCode.TOO_LARGE.value, message=too_large_message(limit), details=[detail]
        )
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=413)


def compressed_response(content_encoding: str, problem: str) -> JSONResponse:
    """The 415 for a compressed body, with `Accept-Encoding: identity` (RFC 7694: what a
    server that takes no coding answers)."""
    detail = ErrorDetail(field="header.content-encoding", message=problem)
    coding = content_encoding.strip()[:80]
    message = f"request body is compressed (Content-Encoding: {coding}); send it uncompressed"
    body = HttpErrorResponse(
        error=HttpErrorBody(code=UNSUPPORTED_MEDIA_TYPE, message=message, details=[detail])
    )
    return JSONResponse(
        body.model_dump(mode="json"), status_code=415, headers={"Accept-Encoding": IDENTITY}
    )


class BodyGateMiddleware:
    """415 for a body sent with a `Content-Encoding`; 413 when Content-Length is over
    `max_body_bytes`, or when a chunked body grows past it."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length, coding, chunked = _body_headers(scope)
        if coding is not None and (length > 0 or chunked):
            problem = coding_refusal(coding)
            if problem is not None:
                await compressed_response(coding, problem)(scope, receive, send)
                return
        if length > self.max_body_bytes:
            await too_large_response(self.max_body_bytes)(scope, receive, send)
            return
        await self._limited(scope, receive, send)

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit, received, started = self.max_body_bytes, 0, False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            # Reached only when nothing inside turned it into a response (e.g. a plain Starlette
            # route); once a response has started there is nothing left to correct.
            if started:
                raise
            await too_large_response(limit)(scope, receive, send)


def _body_headers(scope: Scope) -> tuple[int, str | None, bool]:
    """Content-Length (0 when absent or unreadable), Content-Encoding, and whether the body is
    chunked: one pass over the raw headers, which every request pays for."""
    length, coding, chunked = 0, None, False
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                length = 0
        elif name == b"content-encoding":
            coding = value.decode("latin-1")
        elif name == b"transfer-encoding":
            chunked = True
    return length, coding, chunked
