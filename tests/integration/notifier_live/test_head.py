"""HEAD through the gateway's own server: the headers of the GET, no body on the wire, and,
for the event stream, no stream held open."""

from __future__ import annotations

import asyncio

import httpx

from .conftest import WAIT, Gateway, GatewayFactory, bearer, new_user, sse_client, token


async def exchange(gateway: Gateway, request: bytes, answers: int) -> bytes:
    """What the gateway sends back on one connection until it has answered `answers` times
    (two requests pipelined: the second's answer shows where the first one's ended)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway.port)
    writer.write(request)
    received = b""
    async with asyncio.timeout(WAIT):
        while received.count(b"HTTP/1.1 ") < answers or not received.endswith(b"}"):
            chunk = await reader.read(65536)
            if not chunk:
                break
            received += chunk
    writer.close()
    return received


async def test_head_answers_the_gets_headers_and_sends_no_body(gateway: Gateway) -> None:
    ann = token(new_user("ann"))
    asked = (
        f"HEAD /api/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {ann}\r\n\r\n"
        f"GET /api/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {ann}\r\n\r\n"
    ).encode()
    received = await exchange(gateway, asked, answers=2)
    head, _, rest = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    got, _, body = rest.partition(b"\r\n\r\n")
    # The HEAD's answer ends with its headers: the GET's answer follows at once.
    assert got.startswith(b"HTTP/1.1 200 ")
    length = f"content-length: {len(body)}".encode()
    assert length in head.lower() and length in got.lower()


async def test_head_of_the_event_stream_ends_at_once_and_holds_no_session(
    gateways: GatewayFactory,
) -> None:
    gateway = await gateways(live_sessions_per_user=1)
    ann = new_user("ann")
    async with httpx.AsyncClient(base_url=gateway.http_url, timeout=WAIT) as http:
        for _ in range(3):
            head = await http.head("/api/events", headers=bearer(ann))
            assert head.status_code == 200
            assert head.headers["content-type"].startswith("text/event-stream")
        assert (await http.head("/api/events")).status_code == 401  # as the GET
    live = gateway.notifier.live
    assert live is not None
    assert not live.sessions_of(ann)
    async with sse_client(gateway, bearer(ann)) as stream:  # the one session is still free
        await stream.ready()
        async with httpx.AsyncClient(base_url=gateway.http_url, timeout=WAIT) as http:
            assert (await http.head("/api/events", headers=bearer(ann))).status_code == 429
