"""A cap on one user's live connections (WebSocket and SSE together), released as each ends."""

from __future__ import annotations

import asyncio
import socket
import struct

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from .conftest import (
    WAIT,
    Gateway,
    GatewayFactory,
    StalledClient,
    bearer,
    new_user,
    sse_client,
    token,
    ws_client,
)

REASON = (
    "too many live connections: at most 2 per user (WebSocket and SSE together); close one first"
)


async def refused_websocket(gateway: Gateway, user: str) -> tuple[int | None, str]:
    """The close code and reason a WebSocket of `user` gets instead of its events."""
    async with ws_client(gateway, user) as client:
        with pytest.raises(ConnectionClosed):
            await client.frame()
    return client.conn.close_code, client.conn.close_reason


async def sse_status(gateway: Gateway, user: str) -> httpx.Response:
    """The answer to a stream request of `user`, when it is an error (read whole)."""
    async with sse_client(gateway, bearer(user)) as client:
        await client.response.aread()
    return client.response


async def none_held(gateway: Gateway, user: str) -> None:
    """Return once the gateway counts no live connection of `user`'s."""
    live = gateway.notifier.live
    assert live is not None
    async with asyncio.timeout(WAIT):
        while live.sessions_of(user):  # noqa: ASYNC110 (a count, no event to wait on)
            await asyncio.sleep(0.01)


async def test_a_user_holding_the_most_live_connections_is_refused_a_next_one_of_either_kind(
    gateways: GatewayFactory,
) -> None:
    gateway = await gateways(live_sessions_per_user=2)
    ann = new_user("ann")
    async with ws_client(gateway, ann) as ws, sse_client(gateway, bearer(ann)) as sse:
        await ws.ready()
        await sse.ready()
        assert await refused_websocket(gateway, ann) == (1008, REASON)
        refused = await sse_status(gateway, ann)
        assert refused.status_code == 429
        assert refused.json() == {
            "error": {"code": "too_many_sessions", "message": REASON, "details": []}
        }
        async with ws_client(gateway, new_user("bob")) as other:  # the cap is per user
            await other.ready()
        # Both still served.
        await ws.send('{"type": "ping"}')
        assert await ws.frame() == {"type": "pong"}
    await none_held(gateway, ann)
    async with ws_client(gateway, ann) as ws, sse_client(gateway, bearer(ann)) as sse:
        await ws.ready()
        await sse.ready()


async def test_connections_that_end_abnormally_free_their_places(
    gateways: GatewayFactory,
) -> None:
    gateway = await gateways(live_sessions_per_user=2)
    cy = new_user("cy")
    reset = StalledClient(gateway.ws_url(token=token(cy)))
    await reset.connect()
    async with sse_client(gateway, bearer(cy)) as sse:
        await sse.ready()  # then the client drops the connection, mid-stream
    reset.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    reset.sock.close()  # a reset: no close frame
    await none_held(gateway, cy)
    live = gateway.notifier.live
    assert live is not None
    async with ws_client(gateway, cy) as first, ws_client(gateway, cy) as second:
        await first.ready()
        await second.ready()
        assert not live.has_room(cy)
