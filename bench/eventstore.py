"""Event store append latency/throughput (SQLite, PostgreSQL), raw asyncpg floor, outbox relay."""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

import asyncpg
import nats

from baton_eventstore import NewEvent, OutboxMessage, OutboxRelay, SqlEventStore
from baton_messaging.embedded import EmbeddedNatsServer
from baton_messaging.publisher import JetStreamPublisher
from bench.measure import concurrent, sequential
from bench.postgres import asyncpg_dsn, fresh_database
from bench.registry import Options, Row, case

WRITERS = 50


def _event(n: int) -> NewEvent:
    body = b'{"n": %d}' % n
    return NewEvent(
        uuid.uuid4(),
        "bench.happened",
        {"n": n, "text": "a small payload like a step result"},
        {"trace": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
        publish=OutboxMessage(f"bench.evt.{n % 10}", body),
    )


async def _append_rows(store: SqlEventStore, options: Options) -> list[Row]:
    count = options.size(3000, 200)
    # Warm the pools and statement caches with every writer at once, as the floor's pool is.
    await asyncio.gather(*(store.append(f"warm-{w}", 0, [_event(w)]) for w in range(WRITERS)))
    seq = await sequential(
        "append 1 event + outbox, sequential", count, lambda i: store.append("seq", i, [_event(i)])
    )
    per = max(count // WRITERS, 2)
    conc = await concurrent(
        f"append, {WRITERS} concurrent streams",
        WRITERS,
        per,
        lambda w, i: store.append(f"c-{w}", i, [_event(i)]),
    )
    return [seq, conc]


def _with_target(rows: list[Row]) -> list[Row]:
    # Issue 2: appends stay within 2x of the raw asyncpg floor measured in the same run.
    target = "target: within 2x of reference.asyncpg"
    return [replace(row, note=target) for row in rows]


@case("eventstore.append.sqlite", "append latency and throughput on a SQLite file (WAL)")
async def append_sqlite(options: Options) -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        store = await SqlEventStore.from_url(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}")
        try:
            return await _append_rows(store, options)
        finally:
            await store.close()


@case("eventstore.append.postgres", "append latency and throughput on PostgreSQL (asyncpg)")
async def append_postgres(options: Options) -> list[Row]:
    async with fresh_database(options.postgres_url) as url:
        store = await SqlEventStore.from_url(url, pool_size=WRITERS, max_overflow=10)
        try:
            return _with_target(await _append_rows(store, options))
        finally:
            await store.close()


_RAW_TABLE = "CREATE TABLE raw (id BIGSERIAL PRIMARY KEY, k TEXT NOT NULL, body JSONB NOT NULL)"
_RAW_INSERT = "INSERT INTO raw (k, body) VALUES ($1, $2)"


@case("reference.asyncpg", "the floor: raw asyncpg single-row INSERT + COMMIT")
async def raw_asyncpg(options: Options) -> list[Row]:
    count = options.size(3000, 200)
    async with fresh_database(options.postgres_url) as url:
        pool = await asyncpg.create_pool(asyncpg_dsn(url), min_size=WRITERS, max_size=WRITERS)
        try:
            await pool.execute(_RAW_TABLE)

            async def insert(key: str) -> None:
                async with pool.acquire() as conn, conn.transaction():
                    await conn.execute(_RAW_INSERT, key, '{"n": 1}')

            seq = await sequential("INSERT+COMMIT, sequential", count, lambda i: insert("s"))
            per = max(count // WRITERS, 2)
            conc = await concurrent(
                f"INSERT+COMMIT, {WRITERS} writers", WRITERS, per, lambda w, i: insert(f"c{w}")
            )
            return [seq, conc]
        finally:
            await pool.close()


@case("relay.publish.sqlite", "outbox relay: publish committed rows to an embedded NATS")
async def relay_publish(options: Options) -> list[Row]:
    count = options.size(5000, 300)
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedNatsServer(store_dir=Path(folder) / "nats")
        await asyncio.to_thread(server.start)
        nc = await nats.connect(server.url)
        store = await SqlEventStore.from_url(f"sqlite+aiosqlite:///{Path(folder) / 'b.db'}")
        try:
            js = nc.jetstream()
            await js.add_stream(name="BENCH_EVT", subjects=["bench.evt.>"], duplicate_window=120)
            for start in range(0, count, 100):
                await store.append("relay", start, [_event(n) for n in range(start, start + 100)])
            relay = OutboxRelay(store, JetStreamPublisher(js), batch_size=100)
            t0 = time.perf_counter()
            await relay.drain(timeout=600)
            elapsed = time.perf_counter() - t0
            row = Row(f"relay drain of {count} rows, batch 100", count, count / elapsed)
            return [row]
        finally:
            await store.close()
            await nc.close()
            await asyncio.to_thread(server.stop)
