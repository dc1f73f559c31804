"""Clients that flood the gateway's sockets or never read: the gateway's memory stays bounded.

Each test drives a real gateway through a raw socket with a tiny receive buffer, and looks at
the gateway's side of the connection (its protocol and transport), not at the process's size.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
import struct
import weakref
from collections.abc import Awaitable, Callable

import pytest
from nats.aio.client import Client

from baton_notifier.entrypoints.ws_protocol import GatewayWebSocketProtocol

from .conftest import (
    WAIT,
    Gateway,
    GatewayFactory,
    StalledClient,
    new_user,
    publish,
    step_blocked,
    token,
)

PING = b"\x89\xfd" + bytes(4) + b"p" * 125  # a masked ping frame, 125 bytes of payload (max)
FLOOD_BYTES = 32 * 1024 * 1024  # far more than the kernel's buffers on both sides hold
BUFFERED_AT_MOST = 1024 * 1024  # the high-water mark (64 KiB) and one read's pongs, with room


def websocket_of(gateway: Gateway) -> GatewayWebSocketProtocol:
    """The gateway's side of its one WebSocket connection."""
    connections = gateway.server.server_state.connections
    (protocol,) = [c for c in connections if isinstance(c, GatewayWebSocketProtocol)]
    return protocol


def all_closed(gateway: Gateway) -> bool:
    """True once the gateway has no connection, and no app task serving one, left."""
    state = gateway.server.server_state
    return not state.connections and not state.tasks


async def until(condition: Callable[[], bool]) -> None:
    """Return once `condition()` holds (a state of uvicorn's, which no event announces)."""
    async with asyncio.timeout(WAIT):
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def raw_connection(gateway: Gateway) -> socket.socket:
    """A TCP connection to the gateway that reads little at a time (4 KB receive buffer)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", gateway.port))
    return sock


async def drain(sock: socket.socket) -> None:
    """Read and drop everything the gateway sends, until it closes the connection."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(ConnectionResetError):
        while await loop.sock_recv(sock, 1024 * 1024):
            pass


async def test_a_client_flooding_pings_and_reading_nothing_is_not_read_from(
    gateway: Gateway,
) -> None:
    client = StalledClient(gateway.ws_url(token=token(new_user("flood"))))
    await client.connect()
    server = websocket_of(gateway)
    loop = asyncio.get_running_loop()
    flooding = asyncio.create_task(
        loop.sock_sendall(client.sock, PING * (FLOOD_BYTES // len(PING)))
    )
    try:
        # Each ping's pong waits in the gateway's write buffer: the gateway stops reading
        # pings (TCP holds the rest on the client's side) instead of buffering more pongs.
        await until(lambda: not server.transport.is_reading())
        assert server.transport.get_write_buffer_size() < BUFFERED_AT_MOST
        assert not flooding.done()
        # Once the client reads, the gateway reads again and answers every ping.
        reading = asyncio.create_task(drain(client.sock))
        await asyncio.wait_for(flooding, WAIT)
        assert not reading.done()  # the connection is still open
        reading.cancel()
    finally:
        flooding.cancel()
        client.sock.close()


async def test_a_message_in_more_than_64_frames_closes_the_socket_with_1009(
    gateway: Gateway,
) -> None:
    # Empty continuation frames add nothing to a message's size, which is all websockets
    # bounds: a message that never ended grew the gateway by one list entry per frame.
    client = StalledClient(gateway.ws_url(token=token(new_user("frag"))))
    await client.connect()
    client.protocol.send_text(b"", fin=False)
    for _ in range(10_000):
        client.protocol.send_continuation(b"", fin=False)
    await asyncio.get_running_loop().sock_sendall(
        client.sock, b"".join(client.protocol.data_to_send())
    )
    assert await client.read_to_close() == (1009, "message in more than 64 frames")


async def test_a_message_in_64_frames_is_answered(gateway: Gateway) -> None:
    client = StalledClient(gateway.ws_url(token=token(new_user("frag"))))
    await client.connect()
    ping = b'{"type": "ping"}'.ljust(64)
    client.protocol.send_text(ping[:1], fin=False)
    for n in range(1, 63):
        client.protocol.send_continuation(ping[n : n + 1], fin=False)
    client.protocol.send_continuation(ping[63:], fin=True)
    await asyncio.get_running_loop().sock_sendall(
        client.sock, b"".join(client.protocol.data_to_send())
    )
    await client.read_until({"type": "pong"})
    client.sock.close()


async def _close_by_client(client: StalledClient) -> None:
    client.protocol.send_close(1000)
    await asyncio.get_running_loop().sock_sendall(
        client.sock, b"".join(client.protocol.data_to_send())
    )
    await client.read_to_close()


async def _reset_by_client(client: StalledClient) -> None:
    client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.sock.close()


async def _too_big(client: StalledClient) -> None:
    client.protocol.send_text(b"x" * 70_000)
    await asyncio.get_running_loop().sock_sendall(
        client.sock, b"".join(client.protocol.data_to_send())
    )
    await client.read_to_close()


async def _too_many_frames(client: StalledClient) -> None:
    client.protocol.send_text(b"", fin=False)
    for _ in range(100):
        client.protocol.send_continuation(b"", fin=False)
    await asyncio.get_running_loop().sock_sendall(
        client.sock, b"".join(client.protocol.data_to_send())
    )
    await client.read_to_close()


@pytest.mark.parametrize("deflate", [True, False], ids=["permessage-deflate", "plain"])
@pytest.mark.parametrize("close", [_close_by_client, _reset_by_client, _too_big, _too_many_frames])
async def test_a_closed_websocket_is_freed_without_the_cyclic_garbage_collector(
    gateway: Gateway, close: Callable[[StalledClient], Awaitable[None]], deflate: bool
) -> None:
    # Baton's services collect cycles rarely (raised thresholds): each closed connection
    # left about 50 KB in a cycle until a full collection, 280 MB for 3,000 connections.
    gc.collect()
    gc.disable()
    try:
        client = StalledClient(gateway.ws_url(token=token(new_user("gone"))), deflate=deflate)
        await client.connect()
        assert bool(websocket_of(gateway).conn.extensions) is deflate
        server = weakref.ref(websocket_of(gateway))
        conn = weakref.ref(websocket_of(gateway).conn)
        await close(client)
        await until(lambda: all_closed(gateway))
        assert server() is None
        assert conn() is None
    finally:
        gc.enable()


async def publish_megabytes(nc: Client, user: str, megabytes: int) -> None:
    """Events for `user` of 64 KB each: more than every socket buffer on the way holds."""
    big = "x" * 64_000
    for n in range(megabytes * 1_000_000 // len(big)):
        await publish(nc, step_blocked(user, "stalled-i", f"{n} {big}"))


async def test_a_websocket_client_that_stops_reading_is_cut_off(
    gateways: GatewayFactory, nc: Client
) -> None:
    # Its session waited for room, and once it ended, uvicorn closed the connection only
    # after what was buffered for it was sent: never, so it stayed open for ever.
    gateway = await gateways(write_stall=0.5)
    user = new_user("stalled")
    client = StalledClient(gateway.ws_url(token=token(user)))
    await client.connect()
    await publish_megabytes(nc, user, 10)
    await until(lambda: all_closed(gateway))
    live = gateway.notifier.live
    assert live is not None and live.hub.sessions() == [] and live.sessions_of(user) == 0
    await asyncio.wait_for(drain(client.sock), WAIT)  # what was sent, then the end
    client.sock.close()


async def test_an_sse_client_that_stops_reading_is_cut_off(
    gateways: GatewayFactory, nc: Client
) -> None:
    # The stream's writer waited for the client for ever, holding the connection and the
    # live session.
    gateway = await gateways(write_stall=0.5)
    user = new_user("stalled")
    sock = await raw_connection(gateway)
    loop = asyncio.get_running_loop()
    request = f"GET /api/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token(user)}\r\n\r\n"
    await loop.sock_sendall(sock, request.encode())
    received = b""
    while b"event: ready" not in received:
        received += await asyncio.wait_for(loop.sock_recv(sock, 4096), WAIT)
    await publish_megabytes(nc, user, 10)
    await until(lambda: all_closed(gateway))
    live = gateway.notifier.live
    assert live is not None and live.hub.sessions() == [] and live.sessions_of(user) == 0
    await asyncio.wait_for(drain(sock), WAIT)  # what was sent, then the end
    sock.close()


async def websocket_handshake(gateway: Gateway, path: str, headers: str = "") -> bytes:
    """What the gateway answers a WebSocket upgrade of `path`, read until it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway.port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\n{headers}\r\n".encode()
    )
    try:
        async with asyncio.timeout(WAIT):
            return await reader.read()
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("&note=" + "x" * 9000, ""),  # a request line over websockets' 8 KiB
        ("", "Cookie: " + "c" * 9000 + "\r\n"),  # a header line over it (a browser's cookies)
        ("", "".join(f"X-Extra-{n}: 1\r\n" for n in range(130))),  # over its 128 headers
    ],
    ids=["long-request-line", "long-header", "many-headers"],
)
async def test_a_websocket_upgrade_too_large_for_websockets_is_answered_431_and_closed(
    gateway: Gateway, query: str, headers: str
) -> None:
    # Under BATON_MAX_HEADER_BYTES, so httptools took it; websockets then refused it and
    # queued a 414 or 431 that uvicorn never sent: the client waited for ever, holding a
    # file descriptor of the gateway.
    path = "/ws?token=" + token(new_user("long")) + query
    answer = await websocket_handshake(gateway, path, headers)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 "), answer[:200]
    error = json.loads(body)["error"]
    assert error["code"] == "too_large"
    assert "8192 bytes" in error["message"] and "128 headers" in error["message"]
    await until(lambda: all_closed(gateway))
