"""The gateway's HTTP protocol: httptools with a cap on a request's head (431 past it)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.responses import JSONResponse

from baton_notifier.entrypoints.http_protocol import bounded_head_protocol

LIMIT = 8 * 1024


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers 200 with the size of the headers it was given."""
    size = sum(len(k) + len(v) for k, v in scope["headers"])
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(size).encode()})


@pytest.fixture
async def base() -> AsyncIterator[str]:
    # Bound before uvicorn starts: a port picked free and let go may be taken meanwhile.
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    config = uvicorn.Config(
        app, lifespan="off", log_level="error", http=bounded_head_protocol(LIMIT)
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started:  # noqa: ASYNC110  (uvicorn offers a flag, not an event)
        await asyncio.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task


async def test_a_head_over_the_cap_is_431_and_the_connection_closes(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as client:
        big = await client.get("/", headers={"X-Big": "x" * (LIMIT * 4)})
        assert big.status_code == 431
        assert big.headers["connection"] == "close"
        assert json.loads(big.content)["error"]["code"] == "too_large"
        assert (await client.get("/", headers={"X-Small": "y" * 100})).status_code == 200


async def test_heads_under_the_cap_pass_one_after_another_on_one_connection(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as client:
        for _ in range(5):  # keep-alive: each request's head is counted on its own
            response = await client.get("/", headers={"X-Fill": "z" * (LIMIT // 2)})
            assert response.status_code == 200
        # A body is not part of the head: a large one goes through.
        posted = await client.post("/", content=b"b" * (LIMIT * 8))
        assert posted.status_code == 200


async def reading_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Reads the whole body first, as the gateway's routes do, then answers 200."""
    while (await receive()).get("more_body"):
        pass
    await app(scope, receive, send)


@pytest.fixture
async def patient() -> AsyncIterator[int]:
    """A server whose requests must arrive within 0.5 s; its port."""
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    protocol = bounded_head_protocol(LIMIT, read_timeout=0.5)
    config = uvicorn.Config(reading_app, lifespan="off", log_level="error", http=protocol)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started:  # noqa: ASYNC110  (uvicorn offers a flag, not an event)
        await asyncio.sleep(0.01)
    yield port
    server.should_exit = True
    await task


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # connected, then nothing
        b"GET / HTTP/1.1\r\nHost: x\r\n",  # a head that never ends
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc",  # a short body
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
    ],
)
async def test_a_request_that_does_not_arrive_in_time_is_408_and_closed(
    patient: int, sent: bytes
) -> None:
    # uvicorn timed out only the pause between requests: connections that sent nothing, or a
    # byte at a time, held the gateway's file descriptors until no one could connect.
    reader, writer = await asyncio.open_connection("127.0.0.1", patient)
    writer.write(sent)
    answer = await asyncio.wait_for(reader.read(), timeout=5)  # read() ends when it closes
    writer.close()
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout")


async def test_a_connection_kept_alive_between_requests_in_time_serves_them(patient: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{patient}") as client:
        for _ in range(3):
            assert (await client.get("/")).status_code == 200
            await asyncio.sleep(0.3)  # each pause within the wait, three together past it


@pytest.mark.parametrize(
    ("length", "reason"),
    [
        (b"Content-Length: abc", "Invalid character in Content-Length"),
        (b"Content-Length: 1\r\nContent-Length: 2", "Duplicate Content-Length"),
    ],
)
async def test_a_request_httptools_cannot_read_is_a_json_400_naming_the_header(
    base: str, length: bytes, reason: str
) -> None:
    # uvicorn answered in plain text, "Invalid HTTP request received." (found by a probe of
    # the gateway), where every other error has the common JSON body.
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"POST / HTTP/1.1\r\nHost: x\r\n" + length + b"\r\n\r\nab")
    await writer.drain()
    answer = await reader.read()  # read to the end: the connection is closed after it
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/json" in head.lower()
    message = f"the request is not valid HTTP/1.1: {reason}"
    expected = {
        "error": {
            "code": "bad_request",
            "message": message,
            "details": [{"field": "header.content-length", "message": message}],
        }
    }
    assert json.loads(body) == expected
    assert body == JSONResponse(expected).body  # written as every route's error is, byte for byte


@pytest.mark.skipif(not hasattr(socket, "TCP_USER_TIMEOUT"), reason="a Linux socket option")
async def test_a_client_that_stops_acknowledging_is_given_up_on_after_the_write_stall() -> None:
    # A client that vanished without closing (its network dropped) still takes an SSE
    # stream's keepalives into the gateway's kernel queue, so the write stall never saw it:
    # the kernel retransmitted for about 15 minutes, the user's live place held all along.
    listening = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(
        app,
        lifespan="off",
        log_level="error",
        http=bounded_head_protocol(LIMIT, write_stall=7.5),
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started:  # noqa: ASYNC110  (uvicorn offers a flag, not an event)
        await asyncio.sleep(0.01)
    try:
        reader, writer = await asyncio.open_connection(*listening.getsockname())
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        (connection,) = server.server_state.connections  # kept alive: still the server's
        sock = connection.transport.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 7500
        writer.close()
    finally:
        server.should_exit = True
        await task
