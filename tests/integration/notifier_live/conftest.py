"""Live events end to end: real gateways under uvicorn on free ports, real NATS, real clients.

Events come either from the workflow service (transitions of a chain workflow, started per
test because the service answers a queue group that other tests share) or are published to
JetStream directly, the way the outbox relay does (`Nats-Msg-Id` = event id).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client
from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from baton_auth import mint_token
from baton_contracts import Event
from baton_contracts.workflow import StepBlocked, StepChanged
from baton_contracts.workflow_api import SignalWorkflow, StartWorkflow, WorkflowSignal
from baton_eventstore.port import msg_id_for
from baton_messaging import JetStreamPublisher, request
from baton_messaging.embedded import EmbeddedNatsServer
from baton_notifier.adapters.live_jetstream import EVENTS_STREAM
from baton_notifier.bootstrap import Notifier, build
from baton_notifier.entrypoints.main import server_config
from baton_notifier.entrypoints.server import GatewayServer
from baton_notifier.entrypoints.write_stall import WRITE_STALL_SECONDS
from baton_notifier.settings import NotifierSettings
from baton_workflow.bootstrap import WorkflowApp
from baton_workflow.bootstrap import build as build_workflow
from baton_workflow.settings import WorkflowSettings

SECRET = "live-events-tests-secret-of-32-bytes!"
CHAIN = "live-chain"
WAIT = 10.0  # seconds any single expected frame may take (generous for a loaded CI machine)


def token(user: str, **kwargs: Any) -> str:
    return mint_token(SECRET, user, **kwargs)


def new_user(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class _QuietServer(GatewayServer):
    """No signal handlers: pytest owns Ctrl-C."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Gateway:
    """One gateway process's worth: the notifier app under uvicorn on its own port."""

    notifier: Notifier
    port: int
    server: _QuietServer
    task: asyncio.Task[None]

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, **params: Any) -> str:
        query = "&".join(f"{k}={v}" for k, v in params.items() if v is not None)
        return f"ws://127.0.0.1:{self.port}/ws" + (f"?{query}" if query else "")

    async def caught_up(self, seq: int) -> None:
        """Return once the gateway's live feed has handed on every event up to `seq`."""
        feed = self.notifier.live_feed
        assert feed is not None
        async with asyncio.timeout(WAIT):
            while feed.last_seq < seq:  # noqa: ASYNC110 (a counter, no event to wait on)
                await asyncio.sleep(0.005)

    async def stop(self) -> None:
        if self.task.done():
            return
        self.server.should_exit = True
        await asyncio.wait_for(self.task, 15)
        await self.notifier.stop()


async def start_gateway(
    nats_url: str,
    *,
    wait_live: bool = True,
    write_stall: float = WRITE_STALL_SECONDS,
    **overrides: Any,
) -> Gateway:
    # Bound before uvicorn starts: a port picked free and let go may be taken meanwhile.
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    settings = NotifierSettings(
        nats_url=nats_url,
        jwt_secret=SECRET,
        http_port=port,
        request_timeout_seconds=5.0,
        live_heartbeat_seconds=0.5,
        **overrides,
    )
    notifier = build(settings)
    await notifier.start()
    if wait_live:
        assert notifier.live_feed is not None
        await asyncio.wait_for(notifier.live_feed.wait_ready(), 15)
    # The gateway's own uvicorn configuration (protocols, caps), quieter.
    quieter = settings.model_copy(update={"log_level": "WARNING"})
    config = server_config(notifier.app, quieter, write_stall=write_stall)
    server = _QuietServer(config, notifier.close_live)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    return Gateway(notifier, port, server, task)


@dataclass
class GatewayFactory:
    """`await gateways(**settings)` starts a gateway on the session NATS (or on `url`)."""

    nats_url: str
    started: list[Gateway] = field(default_factory=list)

    async def __call__(self, url: str | None = None, **overrides: Any) -> Gateway:
        gateway = await start_gateway(url or self.nats_url, **overrides)
        self.started.append(gateway)
        return gateway

    def running(self) -> list[Gateway]:
        return [g for g in self.started if not g.task.done()]


@pytest.fixture
async def gateways(nats_url: str) -> AsyncIterator[GatewayFactory]:
    """Starts gateways on demand; all stop after the test."""
    factory = GatewayFactory(nats_url)
    yield factory
    for gateway in factory.started:
        await gateway.stop()


@pytest.fixture
async def gateway(gateways: GatewayFactory) -> Gateway:
    return await gateways()


# --- clients -------------------------------------------------------------------------------


@dataclass
class WsClient:
    """A WebSocket client that reads JSON frames with a timeout."""

    conn: ClientConnection

    @staticmethod
    def decode(message: str | bytes) -> dict[str, Any]:
        frame = json.loads(message)
        assert isinstance(frame, dict)
        return frame

    async def frame(self, timeout: float = WAIT) -> dict[str, Any]:
        return self.decode(await asyncio.wait_for(self.conn.recv(), timeout))

    async def ready(self) -> list[dict[str, Any]]:
        """Every frame before `ready` (the replay), consuming `ready` itself."""
        frames = []
        while (frame := await self.frame())["type"] != "ready":
            frames.append(frame)
        return frames

    async def ready_frame(self) -> dict[str, Any]:
        """The `ready` frame of a connection that resumes nothing (it comes first)."""
        frame = await self.frame()
        assert frame["type"] == "ready", frame
        return frame

    async def events(self, count: int, timeout: float = WAIT) -> list[dict[str, Any]]:
        """The next `count` frames, which must all be events."""
        frames = [await self.frame(timeout) for _ in range(count)]
        assert all("seq" in f and "payload" in f for f in frames), frames
        return frames

    async def silent(self, seconds: float = 0.3) -> None:
        """Nothing arrives for `seconds`."""
        with pytest.raises(TimeoutError):
            frame = await self.frame(seconds)
            pytest.fail(f"unexpected frame {frame}")

    async def send(self, data: str | bytes) -> None:
        await self.conn.send(data)

    async def close(self) -> None:
        await self.conn.close()


@contextlib.asynccontextmanager
async def ws_client(
    gateway: Gateway, user: str | None, *, via: str = "query", **params: Any
) -> AsyncIterator[WsClient]:
    """Connect as `user` (token in the query or the subprotocol), `params` in the query."""
    subprotocols = None
    if user is not None and via == "query":
        params["token"] = token(user)
    elif user is not None:
        subprotocols = ["bearer", token(user)]
    async with connect(
        gateway.ws_url(**params),
        subprotocols=subprotocols,
        open_timeout=WAIT,  # type: ignore[arg-type]
    ) as conn:
        yield WsClient(conn)


@dataclass
class SseEvent:
    event: str
    data: dict[str, Any]
    id: str | None = None


@dataclass
class SseClient:
    """Parses a `text/event-stream` response into events."""

    response: httpx.Response
    lines: AsyncIterator[str] = field(init=False)

    def __post_init__(self) -> None:
        self.lines = self.response.aiter_lines()

    async def next(self, timeout: float = WAIT) -> SseEvent:
        return await asyncio.wait_for(self._next(), timeout)

    async def _next(self) -> SseEvent:
        fields: dict[str, str] = {}
        async for line in self.lines:
            if line == "" and "data" in fields:
                return SseEvent(fields.get("event", "message"), json.loads(fields["data"]),
                                fields.get("id"))  # fmt: skip
            if line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value
        raise EOFError("stream ended")

    async def ready(self) -> list[SseEvent]:
        events = []
        while (event := await self.next()).event != "ready":
            events.append(event)
        return events


@contextlib.asynccontextmanager
async def sse_client(
    gateway: Gateway, headers: dict[str, str] | None = None, **params: Any
) -> AsyncIterator[SseClient]:
    async with (
        httpx.AsyncClient(base_url=gateway.http_url, timeout=WAIT) as http,
        http.stream("GET", "/api/events", params=params, headers=headers) as response,
    ):
        yield SseClient(response)


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(user)}"}


class StalledClient:
    """A WebSocket client that reads nothing until told to: a tiny TCP receive buffer and a
    sans-I/O protocol, so the gateway's writes back up all the way to its queue."""

    def __init__(self, url: str, *, deflate: bool = False) -> None:
        self.uri = parse_uri(url)
        extensions = [ClientPerMessageDeflateFactory()] if deflate else None
        self.protocol = ClientProtocol(self.uri, extensions=extensions, max_size=None)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setblocking(False)
        self.frames: list[dict[str, Any]] = []

    async def connect(self) -> None:
        """Handshake, then read frames up to and including `ready`."""
        loop = asyncio.get_running_loop()
        await loop.sock_connect(self.sock, (self.uri.host, self.uri.port))
        self.protocol.send_request(self.protocol.connect())
        await loop.sock_sendall(self.sock, b"".join(self.protocol.data_to_send()))
        while not any(f["type"] == "ready" for f in self.frames):
            await self._receive_some()

    async def read_until(self, frame: dict[str, Any]) -> None:
        """Read frames until `frame` has arrived."""
        while frame not in self.frames:
            await self._receive_some()

    async def read_to_close(self) -> tuple[int | None, str]:
        """Read every frame until the gateway closes; the close code and reason."""
        while self.protocol.close_rcvd is None:
            if not await self._receive_some():
                break
        close = self.protocol.close_rcvd
        self.sock.close()
        return (close.code, close.reason) if close else (None, "")

    async def _receive_some(self) -> bool:
        data = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(self.sock, 65536), WAIT)
        self.protocol.receive_data(data) if data else self.protocol.receive_eof()
        for event in self.protocol.events_received():
            if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self.frames.append(json.loads(event.data))
        return bool(data)


# --- events ------------------------------------------------------------------------------


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await nats.connect(nats_url)
    yield client
    await client.close()


async def publish(nc: Client, event: Event) -> int:
    """Publish an event the way the outbox relay does; its stream seq."""
    ack = await JetStreamPublisher(nc.jetstream()).publish(
        event.wire_subject(), event.to_bytes(), msg_id_for(event.event_id)
    )
    return ack.seq


def step_changed(user: str, instance: str, n: int) -> StepChanged:
    return StepChanged(
        event_id=uuid.uuid4(), occurred_at=datetime.now(UTC), user_id=user,
        workflow_id=CHAIN, instance_id=instance, previous_step=f"s{n}",
        current_step=f"s{n + 1}", progress=0.5,
    )  # fmt: skip


def step_blocked(user: str, instance: str, reason: str) -> StepBlocked:
    return StepBlocked(
        event_id=uuid.uuid4(), occurred_at=datetime.now(UTC), user_id=user,
        workflow_id=CHAIN, instance_id=instance, current_step="s0", reason=reason,
    )  # fmt: skip


# --- the workflow service ----------------------------------------------------------------


@pytest.fixture(scope="session")
def chain_definitions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ten-step workflow whose steps close on a signal alone."""
    folder = tmp_path_factory.mktemp("live-definitions")
    steps = [
        {"id": f"s{i}", "agent_slug": "live", "min_messages": 0,
         "completion_criteria": [{"checker": "agent_signal"}],
         "next_step": f"s{i + 1}" if i < 9 else None}
        for i in range(10)
    ]  # fmt: skip
    (folder / "chain.json").write_text(json.dumps({"id": CHAIN, "steps": steps}))
    return folder


@pytest.fixture
async def workflow(
    nats_url: str, sqlite_url: str, chain_definitions: Path
) -> AsyncIterator[WorkflowApp]:
    settings = WorkflowSettings(
        nats_url=nats_url, database_url=sqlite_url, workflow_definitions_dir=chain_definitions
    )
    app = build_workflow(settings)
    await app.start()
    yield app
    await app.stop()


@dataclass
class Driver:
    """Starts chain instances and moves them on over NATS. Each call returns once its event
    is on the stream and every running gateway's live feed has handed it on, so a test knows
    exactly which events exist when it (re)connects, and a client that connects next gets
    only later events live."""

    nc: Client
    gateways: GatewayFactory
    published: dict[str, asyncio.Queue[dict[str, Any]]] = field(default_factory=dict)

    async def on_event(self, msg: Any) -> None:
        body = json.loads(msg.data)
        await self.published.setdefault(body["instance_id"], asyncio.Queue()).put(body)

    async def _published(self, instance: str, type_: str) -> None:
        queue = self.published.setdefault(instance, asyncio.Queue())
        body = await asyncio.wait_for(queue.get(), WAIT)
        assert body["type"] == type_, body
        newest = (await self.nc.jetstream().stream_info(EVENTS_STREAM.name)).state.last_seq
        for gateway in self.gateways.running():
            await gateway.caught_up(newest)

    async def start(self, user: str) -> str:
        reply = await request(self.nc, StartWorkflow(user_id=user, workflow_id=CHAIN), timeout=5)
        instance: str = reply.instance.instance_id  # type: ignore[attr-defined]
        await self._published(instance, "workflow.started")
        return instance

    async def advance(self, user: str, instance: str) -> None:
        signal = WorkflowSignal(action="complete_step")
        command = SignalWorkflow(
            user_id=user, instance_id=instance, command_id=uuid.uuid4().hex, signal=signal
        )
        reply = await request(self.nc, command, timeout=5)
        assert reply.outcome == "transitioned", reply  # type: ignore[attr-defined]
        await self._published(instance, "workflow.step_changed")


@pytest.fixture
async def driver(
    workflow: WorkflowApp, nc: Client, gateways: GatewayFactory
) -> AsyncIterator[Driver]:
    driver = Driver(nc, gateways)
    sub = await nc.subscribe("workflow.evt.>", cb=driver.on_event)
    await nc.flush()
    yield driver
    await sub.unsubscribe()


# --- a NATS server of the test's own, to stop and start --------------------------------


@pytest.fixture
def own_nats(tmp_path: Path) -> Iterator[EmbeddedNatsServer]:
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    yield server
    server.stop()
