"""Live events fan-out: 1,000 WebSocket clients on one gateway process (`python -m baton_notifier`).

Each client is one user watching its one instance. Events are contract events published to
JetStream with `Nats-Msg-Id`, as the outbox relay does; `occurred_at` is stamped just before
the publish, so a client's latency is its receive time minus `occurred_at` (one clock: both
ends run on this machine). The clients are a small sans-I/O WebSocket reader each, so the
bench process spends little CPU per frame and the gateway is what is measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import nats
from nats.aio.client import Client as Nats
from pydantic import TypeAdapter
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from baton_auth import mint_token
from baton_contracts.workflow import StepChanged
from baton_eventstore import NewEvent, OutboxMessage, OutboxRelay, SqlEventStore, create_engine
from baton_messaging import JetStreamPublisher
from baton_messaging.embedded import EmbeddedNatsServer, free_port
from bench.measure import percentile
from bench.platform import stop_process
from bench.postgres import fresh_database
from bench.registry import Options, Row, case

SECRET = "bench-live-secret-bench-live-secret!!"


class Stats:
    """What every client records: latencies in ms, and events per user."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.received = 0
        self.last_at = 0.0
        self.changed = asyncio.Event()


class WsReader(asyncio.Protocol):
    """One WebSocket client that only reads: handshake, then frames parsed in bulk."""

    def __init__(self, url: str, user: str, stats: Stats) -> None:
        self.protocol = ClientProtocol(parse_uri(url), max_size=None)
        self.user, self.stats = user, stats
        self.ready = asyncio.get_running_loop().create_future()
        self.seqs: list[int] = []
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        transport.write(b"".join(self.protocol.data_to_send()))

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self._frame(json.loads(event.data), now)
        if self.transport is not None and (out := self.protocol.data_to_send()):
            self.transport.write(b"".join(out))  # pongs to the gateway's pings

    def _frame(self, frame: dict[str, object], now: float) -> None:
        if frame["type"] == "ready":
            self.ready.set_result(None)
            return
        assert isinstance(frame["seq"], int) and isinstance(frame["occurred_at"], str)
        occurred = datetime.fromisoformat(frame["occurred_at"]).timestamp()
        self.stats.latencies.append((now - occurred) * 1000)
        self.seqs.append(frame["seq"])
        self.stats.received += 1
        self.stats.last_at = now
        self.stats.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(f"{self.user}: closed during handshake"))


@contextlib.asynccontextmanager
async def gateway_process(work: Path) -> AsyncIterator[tuple[str, int, int]]:
    """NATS and one `python -m baton_notifier`; yields (nats_url, http port, gateway pid)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    server = EmbeddedNatsServer(store_dir=work / "nats")
    server.start()
    port = free_port()
    process = _spawn_gateway(server.url, port, work / "notifier.log")
    try:
        await _wait_healthy(port, process)
        yield server.url, port, process.pid
    finally:
        stop_process(process)
        server.stop()


def _spawn_gateway(nats_url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "BATON_NATS_URL": nats_url, "BATON_JWT_SECRET": SECRET,
           "BATON_HTTP_PORT": str(port), "BATON_LOG_LEVEL": "WARNING"}  # fmt: skip
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "baton_notifier"], env=env,
                                stdout=out, stderr=subprocess.STDOUT)  # fmt: skip


async def _wait_healthy(port: int, process: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(300):
            if process.poll() is not None:
                raise RuntimeError("the gateway exited during start; see notifier.log")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"http://127.0.0.1:{port}/health")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise RuntimeError("the gateway did not become healthy")


async def connect_clients(port: int, count: int, stats: Stats) -> list[WsReader]:
    """`count` clients, one user each, all past their `ready` frame."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(100)

    async def one(n: int) -> WsReader:
        user = f"fan-{n:04d}"
        url = f"ws://127.0.0.1:{port}/ws?token={mint_token(SECRET, user)}&instance_id=i-{n:04d}"
        async with gate:
            _, reader = await loop.create_connection(
                lambda: WsReader(url, user, stats), "127.0.0.1", port
            )
            await asyncio.wait_for(reader.ready, 30)
        return reader

    return list(await asyncio.gather(*(one(n) for n in range(count))))


_DATETIME = TypeAdapter(datetime)
_UNSTAMPED = datetime(2000, 1, 1, tzinfo=UTC)
_PLACEHOLDER = _DATETIME.dump_json(_UNSTAMPED)


def prepared(reader: WsReader, n: int) -> tuple[str, bytes, str]:
    """Subject, body and msg id of an event for the reader's instance, not yet stamped."""
    event = StepChanged(
        event_id=uuid.uuid4(), occurred_at=_UNSTAMPED, user_id=reader.user,
        workflow_id="bench", instance_id=f"i-{reader.user[-4:]}", previous_step=f"s{n}",
        current_step=f"s{n + 1}", progress=0.5,
    )  # fmt: skip
    return event.wire_subject(), event.to_bytes(), str(event.event_id)


def stamped(body: bytes) -> bytes:
    """The body with `occurred_at` set to this moment (events are built ahead of time, so the
    time to build them is not counted as delivery latency)."""
    return body.replace(_PLACEHOLDER, _DATETIME.dump_json(datetime.now(UTC)), 1)


async def wait_for_count(stats: Stats, expected: int, timeout: float = 60) -> None:
    async def wait() -> None:
        while stats.received < expected:
            stats.changed.clear()
            await stats.changed.wait()

    await asyncio.wait_for(wait(), timeout)


async def one_by_one(nc: Nats, readers: list[WsReader], stats: Stats) -> Row:
    """One event per client, each publish awaited like the outbox relay's."""
    publisher = JetStreamPublisher(nc.jetstream())
    events = [prepared(reader, 0) for reader in readers]
    before, stats.latencies = stats.received, []
    start = time.time()
    for subject, body, msg_id in events:
        await publisher.publish(subject, stamped(body), msg_id)
    await wait_for_count(stats, before + len(readers))
    return _row(f"{len(readers)} clients, 1 event each, published one by one (outbox-like)",
                stats, start, "target: p99 < 50 ms")  # fmt: skip


async def through_outbox(
    nc: Nats, readers: list[WsReader], stats: Stats, database_url: str, store_name: str
) -> Row:
    """One event per client, each committed with its outbox row and published by the relay.

    `occurred_at` is stamped just before the append, so the latency runs from the commit (as a
    service makes it) through the relay, JetStream and the gateway to the client.
    """
    store = SqlEventStore(create_engine(database_url))
    await store.migrate()
    relay = OutboxRelay(store, JetStreamPublisher(nc.jetstream()), lease_name="bench-live")
    relay.start()
    events = [prepared(reader, 100) for reader in readers]
    before, stats.latencies = stats.received, []
    start = time.time()
    try:
        for i, (subject, body, msg_id) in enumerate(events):
            message = OutboxMessage(subject=subject, body=stamped(body))
            event = NewEvent(event_id=uuid.UUID(msg_id), type="workflow.step_changed",
                             payload={}, publish=message)  # fmt: skip
            await store.append(f"bench-live-{i}", 0, [event])
            relay.kick()
        await wait_for_count(stats, before + len(readers))
    finally:
        await relay.stop()
        await store.close()
    label = f"{len(readers)} clients, 1 event each, committed one by one ({store_name}), relayed"
    return _row(label, stats, start, "outbox commit -> client; target: p99 < 50 ms")


async def burst(nc: Nats, readers: list[WsReader], stats: Stats, rounds: int) -> Row:
    """`rounds` events per client, published back to back without waiting for acks."""
    events = [prepared(reader, n + 1) for n in range(rounds) for reader in readers]
    before, stats.latencies = stats.received, []
    start = time.time()
    for i, (subject, body, msg_id) in enumerate(events):
        await nc.publish(subject, stamped(body), headers={"Nats-Msg-Id": msg_id})
        if i % 50 == 49:
            await asyncio.sleep(0)  # let the client's flusher put them on the wire
    await nc.flush()
    await wait_for_count(stats, before + len(events))
    if rounds == 1:
        label, note = f"{len(readers)} clients, 1 event each, all published at once", ""
    else:
        label = f"{len(readers)} clients x {rounds} events, published back to back"
        note = "deliveries/s; target >= 20,000/s"
    return _row(label, stats, start, note)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def with_gateway_cpu(pid: int, measure: Awaitable[Row]) -> Row:
    """The row, its note saying how much gateway CPU each delivery took."""
    before = cpu_seconds(pid)
    row = await measure
    per_delivery = (cpu_seconds(pid) - before) / max(row.ops, 1) * 1e6
    note = f"gateway CPU {per_delivery:.0f} us/delivery" + (f"; {row.note}" if row.note else "")
    return dataclasses.replace(row, note=note)


def _row(label: str, stats: Stats, start: float, note: str) -> Row:
    count = len(stats.latencies)
    return Row(
        label=label,
        ops=count,
        ops_per_s=count / (stats.last_at - start),
        p50_ms=percentile(stats.latencies, 50),
        p95_ms=percentile(stats.latencies, 95),
        p99_ms=percentile(stats.latencies, 99),
        note=note,
    )


def _check_exactly_once(readers: list[WsReader], per_client: int) -> None:
    for reader in readers:
        if len(reader.seqs) != per_client or reader.seqs != sorted(set(reader.seqs)):
            raise RuntimeError(f"{reader.user} got {len(reader.seqs)} events, not {per_client}")


@case("notifier.fanout", "1,000 WebSocket clients on one gateway: publish->client, deliveries/s")
async def fanout(opts: Options) -> list[Row]:
    count, rounds = opts.size(1000, 50), opts.size(20, 2)
    with tempfile.TemporaryDirectory(prefix="baton-bench-live-") as tmp:
        async with gateway_process(Path(tmp)) as (nats_url, port, pid):
            nc = await nats.connect(nats_url)
            stats = Stats()
            readers = await connect_clients(port, count, stats)
            try:
                rows = [await with_gateway_cpu(pid, one_by_one(nc, readers, stats))]
                sqlite_url = f"sqlite+aiosqlite:///{Path(tmp) / 'outbox.db'}"
                rows.append(await through_outbox(nc, readers, stats, sqlite_url, "SQLite"))
                async with fresh_database(opts.postgres_url) as pg_url:
                    rows.append(await through_outbox(nc, readers, stats, pg_url, "PostgreSQL"))
                rows.append(await with_gateway_cpu(pid, burst(nc, readers, stats, 1)))
                rows.append(await with_gateway_cpu(pid, burst(nc, readers, stats, rounds)))
                _check_exactly_once(readers, 4 + rounds)
            finally:
                for reader in readers:
                    if reader.transport is not None:
                        reader.transport.close()
                await nc.close()
    return rows
