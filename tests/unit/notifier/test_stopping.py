"""`AnswerWhenStopping`: what a request cancelled by the gateway's stop sends its client."""

import asyncio
import json
from typing import Any

import pytest

from baton_notifier.entrypoints.stopping import STOPPING_MESSAGE, AnswerWhenStopping

HTTP = {"type": "http", "method": "POST", "path": "/api/workflows/w1/messages", "headers": []}


class Client:
    """The server's `send`, refusing what comes after a response has begun, as ASGI has it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and self.sent:
            raise RuntimeError("Unexpected ASGI message 'http.response.start'")
        self.sent.append(message)


async def _receive() -> dict[str, Any]:
    return {"type": "http.disconnect"}


class Stalled:
    """An app waiting on an owner that never answers; `begin_response` sends a 200 first."""

    def __init__(self, begin_response: bool = False) -> None:
        self.begin_response = begin_response
        self.waiting = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.begin_response:
            await send({"type": "http.response.start", "status": 200, "headers": []})
        self.waiting.set()
        await asyncio.Event().wait()


async def _run_cancelled(
    stalled: Stalled, client: Client, *, stopping: bool = True, scope_type: str = "http"
) -> asyncio.Task[None]:
    app = AnswerWhenStopping(stalled)
    app.stopping = stopping
    task = asyncio.create_task(app({**HTTP, "type": scope_type}, _receive, client.send))
    await stalled.waiting.wait()
    task.cancel()
    await asyncio.wait([task])
    return task


async def test_a_request_cancelled_by_the_stop_is_answered_503_saying_to_send_it_again() -> None:
    client = Client()
    task = await _run_cancelled(Stalled(), client)
    assert not task.cancelled()
    start, body = client.sent
    assert start["status"] == 503
    assert (b"retry-after", b"2") in start["headers"]
    error = json.loads(body["body"])["error"]
    assert (error["code"], error["message"]) == ("unavailable", STOPPING_MESSAGE)


async def test_a_response_already_begun_is_not_answered_again() -> None:
    client = Client()
    assert (await _run_cancelled(Stalled(begin_response=True), client)).cancelled()
    assert [m["status"] for m in client.sent] == [200]


@pytest.mark.parametrize("scope_type", ["http", "websocket"])
async def test_a_cancel_before_the_stop_or_of_a_websocket_is_left_alone(scope_type: str) -> None:
    client = Client()
    stopping = scope_type == "websocket"  # an HTTP request cancelled before the stop
    task = await _run_cancelled(Stalled(), client, stopping=stopping, scope_type=scope_type)
    assert task.cancelled()
    assert client.sent == []
