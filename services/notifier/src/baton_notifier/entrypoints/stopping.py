"""A request still running when the gateway's stop grace runs out is answered 503, not dropped."""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Receive, Scope, Send

from baton_contracts import ErrorCode
from baton_notifier.domain.errors import ApiError
from baton_notifier.entrypoints.http_errors import RETRY_AFTER_SECONDS, error_response

log = logging.getLogger(__name__)

STOPPING_MESSAGE = (
    "the gateway is stopping and did not finish this request; send it again (a command with "
    "the same command_id, client_message_id or Idempotency-Key, which takes effect once)"
)


def stopping_error() -> ApiError:
    """The 503 a request gets when the gateway stops before it is done."""
    return ApiError(
        503,
        ErrorCode.UNAVAILABLE.value,
        STOPPING_MESSAGE,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


class CutOffByStop(asyncio.CancelledError):
    """The cancel of a request the stop could not answer (its response had begun, or a
    WebSocket), once `AnswerWhenStopping` has said so in one line: what uvicorn logs for it
    (an ERROR with a traceback) is dropped by `server.StopLines`."""


class AnswerWhenStopping:
    """The outermost ASGI layer: once `stopping` is set, an HTTP request that is cancelled
    (uvicorn cancels what still runs when `timeout_graceful_shutdown` runs out) is answered
    `stopping_error()` if its response has not begun. Without it uvicorn answered 500, or,
    killed first, nothing: the client saw its connection drop.

    Nothing per request but a `try`: whether the response has begun is learnt only when it is
    cancelled, from the server refusing a second `http.response.start` (ASGI has it raise)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.stopping = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except asyncio.CancelledError:
            if not self.stopping:
                raise
            if scope["type"] == "http":
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()  # handled here: the task goes on to send the answer
                try:
                    await error_response(stopping_error())(scope, receive, send)
                    return
                except RuntimeError:  # the response had begun: the connection closes
                    pass
            kind = scope.get("method", "") if scope["type"] == "http" else "WebSocket"
            log.info(
                "stopping: cut off %s %s, still running at the end of the stop grace",
                kind,
                scope.get("path", ""),
            )
            raise CutOffByStop from None
