"""Conversation workflows end to end: HTTP signal -> durable transition -> event on NATS."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import nats

from bench.beside import median_beside
from bench.http import LeanHttp
from bench.measure import budget_note, concurrent, cpu_note, sequential
from bench.platform import Platform, running_platform
from bench.postgres import fresh_database
from bench.registry import Options, Row, case

CHAIN = 20  # steps per instance; the last signal completes it and a new one starts
TARGET_P50_MS, TARGET_PER_S = 3.0, 2000.0  # issue 3, PostgreSQL; SQLite rows say the same


def _chain_definition(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    steps = [
        {"id": f"s{i:02d}", "agent_slug": "bench", "min_messages": 0,
         "completion_criteria": [{"checker": "agent_signal"}],
         "next_step": f"s{i + 1:02d}" if i + 1 < CHAIN else None}
        for i in range(CHAIN)
    ]  # fmt: skip
    (folder / "chain.json").write_text(json.dumps({"id": "bench-chain", "steps": steps}))
    return folder


class Driver:
    """One gateway client plus one NATS subscription that routes events to their instance."""

    def __init__(self, platform: Platform, http: LeanHttp) -> None:
        self.platform, self.http = platform, http
        self.events: defaultdict[str, asyncio.Queue[str]] = defaultdict(asyncio.Queue)
        self.instances: dict[str, tuple[str, int]] = {}

    async def on_event(self, msg: nats.aio.msg.Msg) -> None:
        body = json.loads(msg.data)
        await self.events[body["instance_id"]].put(body["type"])

    async def start(self, user: str) -> None:
        reply = await self.http.post("/api/workflows", json={"workflow_id": "bench-chain"},
                                     headers=self.platform.headers(user))  # fmt: skip
        instance = reply.json()["instance_id"]
        await asyncio.wait_for(self.events[instance].get(), 10)  # workflow.started
        self.instances[user] = (instance, 0)

    async def transition(self, user: str) -> None:
        """One signal; returns once its event (step_changed or completed) arrived on NATS."""
        if user not in self.instances:
            await self.start(user)
        instance, done = self.instances[user]
        reply = await self.http.post(f"/api/workflows/{instance}/signal",
                                     json={"action": "complete_step"},
                                     headers=self.platform.headers(user))  # fmt: skip
        if reply.status_code != 200:
            raise RuntimeError(f"signal failed: {reply.status_code} {reply.text}")
        await asyncio.wait_for(self.events[instance].get(), 10)
        if done + 1 == CHAIN:
            del self.instances[user]
        else:
            self.instances[user] = (instance, done + 1)


@asynccontextmanager
async def driver(database_url: str) -> AsyncIterator[Driver]:
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as tmp:
        work = Path(tmp)
        defs = _chain_definition(work / "defs")
        async with running_platform(work, database_url, defs) as platform:
            nc = await nats.connect(platform.nats_url)
            async with LeanHttp(platform.gateway_url, 100) as http:
                d = Driver(platform, http)
                await nc.subscribe("workflow.evt.>", cb=d.on_event)
                await nc.flush()
                yield d
            await nc.close()


async def _measure(label: str, database_url: str, opts: Options) -> list[Row]:
    rows = []
    async with driver(database_url) as d:
        await d.transition("warm")
        count = opts.size(400, 40)
        per = opts.size(40, 4)
        for measure, by, target, per_s in (
            (lambda: sequential(f"{label}: 1 instance", count, lambda i: d.transition("solo")),
             "p50_ms", lambda r: ("p50 < 3 ms", (r.p50_ms or 0) < TARGET_P50_MS), None),
            (lambda: concurrent(f"{label}: 50 instances", 50, per,
                                lambda w, i: d.transition(f"u{w}")),
             "ops_per_s", lambda r: ("2,000 transitions/s", r.ops_per_s >= TARGET_PER_S),
             TARGET_PER_S),
        ):  # fmt: skip
            row, cpu, trials = await median_beside(opts, measure, by)
            what, met = target(row)
            note = f"target {what}: {'met' if met else 'not met'}{trials}"
            note += cpu_note(cpu, row.ops, "transition")
            if per_s is not None:
                note += budget_note(cpu, row.ops, "transition", per_s)
            rows.append(replace(row, note=note))
    return rows


@case("workflow.transition.sqlite", "HTTP signal -> durable transition -> event on NATS, SQLite")
async def transition_sqlite(opts: Options) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="baton-bench-db-") as tmp:
        return await _measure("SQLite", f"sqlite+aiosqlite:///{tmp}/workflow.db", opts)


@case("workflow.transition.postgres", "HTTP signal -> durable transition -> event on NATS, PG")
async def transition_postgres(opts: Options) -> list[Row]:
    async with fresh_database(opts.postgres_url) as url:
        return await _measure("PostgreSQL", url, opts)
