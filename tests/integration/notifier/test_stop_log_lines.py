"""A stop that cancels what still runs says so in one line each, none of them an ERROR: the
gateway stopped cleanly, and a traceback in its log would send an operator looking for a bug.
And a stopping gateway takes no new connection while its live sessions close."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from baton_notifier.entrypoints.server import GatewayServer

GRACE = 0.2

_THIS_TEST = contextvars.ContextVar("_THIS_TEST", default=False)


class _OnlyThisTest(logging.Filter):
    """Records logged in this test's context: its gateway's tasks and callbacks inherit it; what
    an earlier test left running on the session's event loop, or another thread, does not."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _THIS_TEST.get()


class _QuietServer(GatewayServer):
    """No signal handlers: pytest owns Ctrl-C."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def never_ends(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """`/begun`: a body that has begun and never ends; `/ws`: a WebSocket nothing ends;
    anything else: a request waiting on an owner that never answers."""
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
    elif scope["path"] == "/begun":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"part", "more_body": True})
    await asyncio.Event().wait()


async def _no_live_sessions(within: float) -> None:
    """A gateway's `close_live` with no live session to close."""


@contextlib.asynccontextmanager
async def gateway(
    close_live: Callable[[float], Awaitable[None]] = _no_live_sessions,
) -> AsyncIterator[tuple[_QuietServer, str]]:
    # Bound here and handed over: a port picked free and let go was now and then taken by a
    # test running beside before uvicorn bound it.
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    config = uvicorn.Config(
        never_ends,
        lifespan="off",
        log_config=None,
        timeout_graceful_shutdown=GRACE,  # type: ignore[arg-type]
    )
    server = _QuietServer(config, close_live=close_live)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    async with asyncio.timeout(10):
        while not server.started:  # noqa: ASYNC110 - uvicorn offers no event for it
            await asyncio.sleep(0.01)
    try:
        yield server, f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        listening.close()


async def wait_running(server: GatewayServer, count: int) -> None:
    async with asyncio.timeout(10):
        while len(server.server_state.tasks) < count:  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def stop_with_three_running() -> None:
    """A gateway stopped while a request waits, a response has begun and a WebSocket is open."""
    async with (
        gateway() as (server, address),
        httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as http,
        websockets.connect(f"ws://{address}/ws") as ws,
    ):
        waiting = asyncio.create_task(http.get("/waiting"))
        async with http.stream("GET", "/begun") as begun:
            await wait_running(server, 3)
            server.should_exit = True
            with contextlib.suppress(httpx.HTTPError):
                await begun.aread()
        assert (await waiting).status_code == 503
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.recv()


async def test_a_stop_that_cancels_requests_and_streams_logs_no_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The levels of the loggers read here, not only the root's: uvicorn sets "uvicorn.error"'s
    # own level from any `uvicorn.Config(log_level=...)` built earlier in the process (at
    # "error", the stop's WARNING is dropped, as it should be for such a gateway).
    for name in (None, "uvicorn.error", "baton_notifier"):
        caplog.set_level(logging.INFO, logger=name)
    # pytest keeps one capture handler for the whole session: the filter must go with the test,
    # or every later test's caplog would see nothing.
    only_this_test = _OnlyThisTest()
    caplog.handler.addFilter(only_this_test)
    this_test = _THIS_TEST.set(True)
    try:
        await stop_with_three_running()
    finally:
        _THIS_TEST.reset(this_test)
        caplog.handler.removeFilter(only_this_test)
    lines = [r for r in caplog.records if r.name.startswith(("uvicorn", "baton"))]
    shown = [f"{r.levelname} {r.name}: {r.getMessage()}" for r in lines]
    assert not [r for r in lines if r.levelno >= logging.ERROR], shown
    assert not [r for r in lines if r.exc_info], shown
    cancelled = [r for r in lines if "request(s) still running" in r.getMessage()]
    assert [r.levelno for r in cancelled] == [logging.WARNING], shown
    assert cancelled[0].getMessage().startswith("stopping: 3 request(s)"), shown
    cut_off = sorted(r.getMessage() for r in lines if r.getMessage().startswith("stopping: cut"))
    assert len(cut_off) == 2, shown
    assert "GET /begun" in cut_off[0] and "WebSocket /ws" in cut_off[1], cut_off


async def test_a_stopping_gateway_refuses_new_connections_while_live_sessions_close() -> None:
    # The stop waits up to LIVE_CLOSE_SECONDS for the live sessions; a connection accepted in
    # that second would only be cut off by the stop, where a refused one is retried elsewhere.
    waiting, done = asyncio.Event(), asyncio.Event()

    async def slow_to_close(within: float) -> None:
        waiting.set()
        await done.wait()

    async with gateway(slow_to_close) as (server, address):
        host, port = address.split(":")
        server.should_exit = True
        async with asyncio.timeout(10):
            await waiting.wait()
        try:
            with pytest.raises(ConnectionRefusedError):
                _, writer = await asyncio.open_connection(host, int(port))
                writer.close()
        finally:
            done.set()
