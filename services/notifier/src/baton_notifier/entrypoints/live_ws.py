"""`/ws`: live events over a WebSocket.

Authenticate with `?token=<jwt>` or the subprotocols `["bearer", "<jwt>"]`; narrow with
`?instance_id=`; resume with `?last_seq=` and `?epoch=` (the stream's, from the frames; or
`?last_seq=<epoch>-<seq>`). Close codes are in `domain.live` and the docs.

Event frames go straight to the ASGI `send` the route was given: Starlette's `send_text` adds
two coroutine layers and a state check per frame, which shows at 20,000 frames a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from baton_auth import Identity, InvalidToken
from baton_notifier.domain.live import (
    CLOSE_BAD_REQUEST,
    CLOSE_INTERNAL,
    CLOSE_UNAUTHORIZED,
    INTERNAL_REASON,
    BadLiveRequest,
    Frame,
    answer_client_frame,
    parse_instance_id,
)
from baton_notifier.domain.stream_position import (
    Position,
    parse_epoch,
    parse_position,
    resume_point,
)
from baton_notifier.entrypoints.live_routes import (
    BEARER_PROTOCOL,
    WS_TOKEN_HINT,
    identify,
    live_of,
    one_token,
)
from baton_notifier.service.live import LiveSession, TooManySessions

log = logging.getLogger(__name__)

CLOSE_TIMEOUT_SECONDS = 5.0
MAX_REASON_BYTES = 123  # RFC 6455: a close frame's reason fits in 123 bytes


class WebSocketEvents:
    """The `/ws` ASGI app (a class: Starlette passes it `scope`, `receive` and `send` as is)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one WebSocket connection."""
        await websocket_events(WebSocket(scope, receive, send), send)


async def websocket_events(websocket: WebSocket, send: Send) -> None:
    """Accept, authenticate, then replay and stream the caller's events until either side stops.

    `send` is the connection's ASGI `send`, which event frames go through."""
    sent, subprotocol = _tokens_of(websocket)
    await websocket.accept(subprotocol=subprotocol)
    try:
        identity = identify(websocket, one_token(sent), WS_TOKEN_HINT)
    except InvalidToken as exc:
        await _close(websocket, CLOSE_UNAUTHORIZED, str(exc))
        return
    query = websocket.query_params
    try:
        instance_id = parse_instance_id(query.get("instance_id"))
        resume = resume_point(
            parse_position(query.get("last_seq")), parse_epoch(query.get("epoch"))
        )
    except BadLiveRequest as exc:
        await _close(websocket, CLOSE_BAD_REQUEST, str(exc))
        return
    try:
        await _serve(websocket, send, identity, instance_id, resume)
    except TooManySessions as exc:  # refused before it started: 1008, the reason names the cap
        await _close(websocket, exc.code, exc.reason)


def _tokens_of(websocket: WebSocket) -> tuple[list[tuple[str, str | None]], str | None]:
    """The tokens sent, each with where it came from, and the subprotocol to answer with
    (browsers need one they offered). The subprotocol's token used to win over `?token=`
    unsaid; `one_token` now refuses the two when they differ."""
    offered: list[str] = list(websocket.scope.get("subprotocols") or [])
    sent: list[tuple[str, str | None]] = [
        ("?token=", token) for token in websocket.query_params.getlist("token")
    ]
    if BEARER_PROTOCOL not in offered:
        return sent, None
    position = offered.index(BEARER_PROTOCOL)
    token = offered[position + 1] if position + 1 < len(offered) else None
    return [("the subprotocols", token), *sent], BEARER_PROTOCOL


async def _serve(
    websocket: WebSocket,
    send: Send,
    identity: Identity,
    instance_id: str | None,
    resume: Position | None,
) -> None:
    events = live_of(websocket).events
    async with events.subscribe(
        identity.user_id,
        instance_id=instance_id,
        after_seq=None if resume is None else resume.seq,
        epoch=None if resume is None else resume.epoch,
        valid_until=identity.valid_until,  # then the session ends: closed with 4401
    ) as session:
        writer = asyncio.create_task(_write(send, session))
        reader = asyncio.create_task(_read(websocket, session))
        ended = asyncio.create_task(session.ended_event.wait())
        tasks = (writer, reader, ended)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if reader.done() and not reader.cancelled() and reader.exception() is None:
            return  # the client went away
        if session.ended is not None:
            await _close(websocket, session.ended.code, session.ended.reason)
        elif writer.done() and not writer.cancelled() and writer.exception() is not None:
            log.warning("live socket of %s failed: %r", identity.user_id, writer.exception())
            await _close(websocket, CLOSE_INTERNAL, INTERNAL_REASON)


async def _write(send: Send, session: LiveSession) -> None:
    def send_frame(frame: Frame) -> Awaitable[None]:
        return send({"type": "websocket.send", "text": frame.frame})

    await session.pump(send_frame)


async def _read(websocket: WebSocket, session: LiveSession) -> None:
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        session.say(answer_client_frame(message.get("text")))


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    reason = reason.encode()[:MAX_REASON_BYTES].decode(errors="ignore")
    with contextlib.suppress(Exception):
        await asyncio.wait_for(websocket.close(code, reason), CLOSE_TIMEOUT_SECONDS)
