"""A pure ASGI middleware refusing request bodies over a byte limit, without buffering them."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baton_contracts import ErrorCode
from baton_notifier.domain.errors import HttpErrorBody, HttpErrorResponse


class BodyTooLarge(HTTPException):
    """Raised from `receive` once a streamed body passes the limit.

    An `HTTPException` so FastAPI's body parsing re-raises it instead of turning it into a 400.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))


def too_large_message(limit: int) -> str:
    """What a caller is told when its body is over the limit."""
    return f"request body is larger than the limit of {limit} bytes"


def too_large_response(limit: int) -> JSONResponse:
    """The 413 with the common error body."""
    body = HttpErrorResponse(
        error=HttpErrorBody(code=ErrorCode.TOO_LARGE.value, message=too_large_message(limit))
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=413)


class BodyLimitMiddleware:
    """413 when Content-Length is over `max_body_bytes`, or when a chunked body grows past it."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _declared_length(scope) > self.max_body_bytes:
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


def _declared_length(scope: Scope) -> int:
    value = Headers(scope=scope).get("content-length")
    try:
        return int(value) if value is not None else 0
    except ValueError:
        return 0
