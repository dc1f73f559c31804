"""`/ws` and `/api/events`: live events, authenticated with the same JWT as the HTTP API."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import Response, StreamingResponse
from starlette.requests import HTTPConnection
from starlette.routing import WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from baton_auth import Identity, InvalidToken, TokenRefusal, verify_token
from baton_notifier.domain.errors import ApiError, HttpErrorResponse
from baton_notifier.entrypoints.head_requests import GatewayRoute
from baton_notifier.entrypoints.http_errors import error_response
from baton_notifier.service.live import LiveEvents

BEARER_PROTOCOL = "bearer"
"""WebSocket subprotocol marker: offer `["bearer", "<jwt>"]`; the gateway answers `bearer`."""


@dataclass(frozen=True)
class LiveDeps:
    """What the live routes use; `bootstrap.build` fills it."""

    jwt_secret: str
    events: LiveEvents
    keepalive_seconds: float


SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data": {"type": "string", "contentMediaType": "application/json"},
        "event": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    },
}
"""One server-sent event, as OpenAPI 3.2 describes a stream's items: `id` its position
(`<epoch>-<seq>`), `event` its type, `data` the JSON frame (docs/live-events.md)."""


class EventStreamResponse(StreamingResponse):
    """A `text/event-stream` response that no proxy should buffer or cache."""

    media_type = "text/event-stream"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The stream; to a HEAD, its headers alone, at once: uvicorn sends a HEAD no body,
        but the stream would go on unseen, holding one of the user's live sessions, until
        the client hung up."""
        if scope.get("method") != "HEAD":
            await super().__call__(scope, receive, send)
            return
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        await send({"type": "http.response.body", "body": b""})
        aclose = getattr(self.body_iterator, "aclose", None)
        if aclose is not None:  # never started: it subscribed to nothing
            await aclose()


def live_of(connection: HTTPConnection) -> LiveDeps:
    """The live dependencies the app was built with."""
    deps: LiveDeps = connection.app.state.live
    return deps


SSE_TOKEN_HINT = "send 'Authorization: Bearer <jwt>' or ?token=<jwt>"
WS_TOKEN_HINT = "send ?token=<jwt> or the subprotocols ['bearer', '<jwt>']"
"""How `/ws` takes a token: a WebSocket route never reads an Authorization header."""


def one_token(sent: Iterable[tuple[str, str | None]]) -> str | None:
    """The token a request sent, as (where, token) pairs; None when none was.

    Sent two ways (a header and `?token=`), one was taken unsaid: a proxy in front that checks
    the other would vouch for another token than the one acted on. The same token twice is
    taken; two different ones are refused, naming where they came from."""
    given = [(where, token) for where, token in sent if token]
    if len({token for _, token in given}) > 1:
        places = " and ".join(dict.fromkeys(where for where, _ in given))
        raise InvalidToken(
            f"different tokens sent ({places}): send one token, one way", TokenRefusal.MALFORMED
        )
    return given[0][1] if given else None


def identify(connection: HTTPConnection, token: str | None, hint: str) -> Identity:
    """The identity `token` carries; `InvalidToken` when there is none (the message ends with
    `hint`, how to send one) or it does not verify."""
    if not token:
        raise InvalidToken(f"missing token: {hint}", TokenRefusal.MISSING)
    return verify_token(live_of(connection).jwt_secret, token)


def install_live(app: FastAPI, deps: LiveDeps) -> None:
    """Add `/ws` and `/api/events` to the app, served by `deps`."""
    from baton_notifier.entrypoints.live_sse import events_stream
    from baton_notifier.entrypoints.live_ws import WebSocketEvents

    app.state.live = deps
    router = APIRouter(route_class=GatewayRoute)
    # A plain ASGI route: the writer sends frames through the raw `send` (see live_ws).
    router.routes.append(WebSocketRoute("/ws", WebSocketEvents()))
    # Last: a WebSocket anywhere else (`/api/events`, `/ws/`) got uvicorn's bare 403, which
    # reads like a refused token.
    router.routes.append(WebSocketRoute("/{path:path}", no_websocket_here))
    # Plain HTTP on `/ws` (a browser tab, curl without an upgrade) matched no route and got
    # "not found", which reads like a wrong path.
    router.add_api_route(
        "/ws", websocket_only, methods=["GET"], include_in_schema=False, status_code=426
    )
    router.add_api_route(
        "/api/events",
        events_stream,
        methods=["GET"],
        # Documented by `responses` alone (the route returns its `EventStreamResponse`): as
        # the response class, FastAPI called the stream a string, and its errors a stream.
        response_class=Response,
        responses={
            200: {
                "content": {"text/event-stream": {"itemSchema": SSE_EVENT}},
                "description": "Server-sent events",
            },
            401: {"model": HttpErrorResponse, "description": "No valid token"},
            422: {
                "model": HttpErrorResponse,
                "description": "Malformed Last-Event-ID/last_seq/epoch/instance_id",
            },
            429: {
                "model": HttpErrorResponse,
                "description": "The user holds BATON_LIVE_SESSIONS_PER_USER live connections",
            },
        },
    )
    app.include_router(router)


async def no_websocket_here(websocket: WebSocket) -> None:
    """404 with the common error body to a WebSocket on any path but `/ws`, saying where the
    live events are."""
    message = (
        f"no WebSocket endpoint at {websocket.url.path}: live events are a WebSocket at /ws, "
        "or server-sent events from GET /api/events"
    )
    await websocket.send_denial_response(error_response(ApiError(404, "not_found", message)))


async def websocket_only() -> None:
    """426: `/ws` speaks WebSocket only, and says how to reach the events over plain HTTP."""
    raise ApiError(
        426,
        "upgrade_required",
        "/ws is a WebSocket endpoint: connect with a WebSocket client (" + WS_TOKEN_HINT + "), "
        "or read the same events as server-sent events from GET /api/events",
        headers={"Upgrade": "websocket", "Connection": "Upgrade"},
    )
