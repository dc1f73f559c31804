"""Live events of a DAG run over the gateway's WebSocket, narrowed to the run."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import nats
import pytest
import uvicorn
from websockets.asyncio.client import connect

from baton_auth import mint_token
from baton_notifier.entrypoints.server import GatewayServer

from ...platform_stack import SECRET, Stack
from .conftest import Author


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


class _QuietServer(GatewayServer):
    """No signal handlers: pytest owns Ctrl-C."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def serving(stack: Stack) -> AsyncIterator[int]:
    """The stack's gateway under uvicorn on a free port (the port)."""
    # Bound before uvicorn starts: a port picked free and let go may be taken meanwhile.
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    config = uvicorn.Config(stack.notifier.app, lifespan="off", log_level="warning")
    server = _QuietServer(config, stack.notifier.close_live)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)


async def last_seq(nats_url: str) -> int:
    """The last sequence number of the workflow events stream now."""
    nc = await nats.connect(nats_url)
    try:
        return int((await nc.jetstream().stream_info("WORKFLOW_EVT")).state.last_seq)
    finally:
        await nc.close()


async def test_a_client_narrowed_to_a_run_sees_its_steps_in_order(
    stack: Stack, author: Author
) -> None:
    document = {
        "name": "watched",
        "steps": [
            {"id": "research", "agent": "hisui", "prompt": "Research live events"},
            {"id": "pause", "type": "delay", "delay": "200ms", "dependsOn": ["research"]},
            {"id": "write", "agent": "kohaku", "prompt": "Write it up", "dependsOn": ["pause"]},
        ],
    }
    await author.created(document)
    since = await last_seq(stack.nats_url)
    run_id = (await author.run("watched"))["run_id"]
    token = mint_token(SECRET, author.name)
    frames: list[dict[str, Any]] = []
    async with serving(stack) as port:
        url = f"ws://127.0.0.1:{port}/ws?instance_id={run_id}&last_seq={since}"
        async with connect(url, subprotocols=["bearer", token]) as ws:  # type: ignore[list-item]
            while not frames or frames[-1]["type"] != "workflow.run_completed":
                frame = json.loads(await asyncio.wait_for(ws.recv(), 20))
                if "seq" in frame:
                    frames.append(frame)

    payloads = [f["payload"] for f in frames]
    assert {p["instance_id"] for p in payloads} == {run_id}
    assert {p["user_id"] for p in payloads} == {author.name}
    assert [f["seq"] for f in frames] == sorted(f["seq"] for f in frames)
    assert frames[0]["type"] == "workflow.run_started"
    assert payloads[0]["steps"] == ["research", "pause", "write"]
    assert payloads[0]["version_id"] == "watched@1"
    changes = [(p["step_id"], p["status"]) for p in payloads[1:-1]]
    assert changes == [
        ("research", "running"),
        ("research", "success"),
        ("pause", "waiting"),
        ("pause", "success"),
        ("write", "running"),
        ("write", "success"),
    ]
    assert [p["progress"] for p in payloads[1:-1]][-1] == 1.0
    assert (payloads[-1]["status"], payloads[-1]["cost_usd"] > 0) == ("success", True)
