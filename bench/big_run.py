"""One user's largest DAG run beside another user's writes: how long the run's writes hold the
database, and what the other user's signals and small run starts see meanwhile.

Not a `make bench` case (it takes one to six minutes): a script, for docs/performance.md.

    python -m bench.big_run sqlite|postgres notify|dispatch [steps]

User A saves the largest workflow the 524,288-character limit allows (10,356 `notify` steps or
17,605 `dispatch` steps to the scripted agent, fewer with `steps`) and starts it, while user B
sends a signal to a conversation and starts a one-step run, each in a loop, 20 ms apart. A
probe outside the services samples who holds the database: on SQLite, a `BEGIN IMMEDIATE` on
the file every 5 ms (its wait is the time another transaction held the writer); on PostgreSQL,
the oldest open transaction of the service's database every 10 ms. Printed: A's start and end,
the workflow service's resident memory (sampled, and its peak), the probe's longest wait, and
B's count, worst latency and every answer that was not 2xx. `BIGRUN_WATCH` (seconds, 90) is
how long after A's start B is watched; `BIGRUN_DEBUG=1` runs the workflow service on asyncio in
debug mode and copies its log (slow callbacks) to /tmp/bigrun-workflow.log.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import string
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import nats

from bench.http import LeanHttp
from bench.platform import Platform, running_platform
from bench.postgres import DEFAULT_URL, asyncpg_dsn, fresh_database

LIMIT = 512 * 1024
WATCH = float(os.environ.get("BIGRUN_WATCH", "90"))
"""Seconds after A's start that B is watched (A's run may still be going then)."""
ALPHABET = string.ascii_letters + string.digits


def _ids(count: int) -> list[str]:
    out = []
    for n in range(count):
        s = ""
        while True:
            n, r = divmod(n, len(ALPHABET))
            s = ALPHABET[r] + s
            if n == 0:
                break
        out.append(s)
    return out


def largest(kind: str) -> dict[str, Any]:
    """The workflow of as many of the shortest `kind` steps as the size limit lets through."""

    def doc(count: int) -> dict[str, Any]:
        if kind == "notify":
            steps = [{"id": i, "type": "notify", "notifyMsg": "x"} for i in _ids(count)]
        else:
            steps = [{"id": i, "prompt": "x"} for i in _ids(count)]
        return {"name": f"big-{kind}", "steps": steps}

    lo, hi = 1, 40_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(json.dumps(doc(mid))) <= LIMIT:  # as LeanHttp sends it
            lo = mid
        else:
            hi = mid - 1
    return doc(lo)


def _conversation(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    step = {"id": "s", "agent_slug": "bench", "min_messages": 0,
            "completion_criteria": [{"checker": "agent_signal"}], "next_step": None}  # fmt: skip
    (folder / "talk.json").write_text(json.dumps({"id": "talk", "steps": [step]}))
    return folder


class Probe:
    """Samples how long the database's write lock is held by someone else."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()


def sqlite_probe(path: str, probe: Probe) -> None:
    conn = sqlite3.connect(path, isolation_level=None, timeout=120)
    while not probe.stop.is_set():
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        waited = time.perf_counter() - t0
        probe.samples.append((time.time(), waited))
        probe.worst = max(probe.worst, waited)
        time.sleep(0.005)
    conn.close()


async def pg_probe(url: str, probe: Probe) -> None:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    name = url.rpartition("/")[2]
    try:
        while not probe.stop.is_set():
            age = await conn.fetchval(
                "SELECT COALESCE(MAX(EXTRACT(EPOCH FROM clock_timestamp() - xact_start)), 0) "
                "FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() "
                "AND state IN ('active', 'idle in transaction')",
                name,
            )
            probe.samples.append((time.time(), float(age)))
            probe.worst = max(probe.worst, float(age))
            await asyncio.sleep(0.01)
    finally:
        await conn.close()


def rss(pid: int) -> tuple[int, int]:
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


class Other:
    """User B: signals to a conversation and starts of a one-step run, one after another."""

    def __init__(self, platform: Platform, http: LeanHttp) -> None:
        self.platform, self.http = platform, http
        self.headers = platform.headers("userB")
        self.log: list[tuple[str, float, float, int, str]] = []  # kind, at, secs, status, body
        self.stop = False

    async def signals(self, instance: str) -> None:
        while not self.stop:
            body = {"action": "stay", "command_id": uuid.uuid4().hex}
            t0 = time.time()
            r = await self.http.post(f"/api/workflows/{instance}/signal", json=body,
                                     headers=self.headers)  # fmt: skip
            self.log.append(("signal", t0, time.time() - t0, r.status_code, r.text[:200]))
            await asyncio.sleep(0.02)

    async def starts(self) -> None:
        while not self.stop:
            t0 = time.time()
            r = await self.http.post("/workflows/small/run", json={}, headers=self.headers)
            self.log.append(("start", t0, time.time() - t0, r.status_code, r.text[:200]))
            await asyncio.sleep(0.02)


async def main(backend: str, kind: str, count: int | None) -> None:
    document = largest(kind)
    if count is not None:
        document["steps"] = document["steps"][:count]
    steps = len(document["steps"])
    source = json.dumps(document)
    print(f"{backend}, {steps} {kind} steps, document {len(source)} chars", flush=True)
    with tempfile.TemporaryDirectory(prefix="baton-bigrun-") as tmp:
        work = Path(tmp)
        defs = _conversation(work / "defs")
        if backend == "sqlite":
            db = work / "workflow.db"
            await _measure(work, f"sqlite+aiosqlite:///{db}", f"sqlite+aiosqlite:///{work}/agent.db",
                           defs, source, kind, steps, str(db))  # fmt: skip
        else:
            server = os.environ.get("BATON_BENCH_POSTGRES_URL", DEFAULT_URL)
            async with fresh_database(server) as url, fresh_database(server) as agent:
                await _measure(work, url, agent, defs, source, kind, steps, None)


async def _measure(work: Path, url: str, agent_url: str, defs: Path, source: str, kind: str,
                   steps: int, sqlite_path: str | None) -> None:  # fmt: skip
    env = None
    if os.environ.get("BIGRUN_DEBUG"):  # asyncio's slow-callback warnings in workflow.log
        env = {"BATON_EVENT_LOOP": "asyncio", "PYTHONASYNCIODEBUG": "1"}
    async with running_platform(work, url, defs, agent_url, env) as platform:
        nc = await nats.connect(platform.nats_url)
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        run_ids: set[str] = set()

        async def on_done(msg: Any) -> None:
            body = json.loads(msg.data)
            if body["instance_id"] in run_ids and not done.done():
                done.set_result(body)

        await nc.subscribe("workflow.evt.run_completed.>", cb=on_done)
        async with LeanHttp(platform.gateway_url, 20, timeout=120) as http:
            a = platform.headers("userA")
            r = await http.post("/workflows", json=json.loads(source), headers=a)
            assert r.status_code == 201, (r.status_code, r.text[:500])
            b = Other(platform, http)
            small = {"name": "small", "steps": [{"id": "n", "type": "notify", "notifyMsg": "hi"}]}
            r = await http.post("/workflows", json=small, headers=b.headers)
            assert r.status_code == 201, r.text
            r = await http.post("/api/workflows", json={"workflow_id": "talk"}, headers=b.headers)
            instance = r.json()["instance_id"]
            probe = Probe()
            if sqlite_path is not None:
                thread = threading.Thread(target=sqlite_probe, args=(sqlite_path, probe))
                thread.start()
                probe_task = None
            else:
                probe_task = asyncio.create_task(pg_probe(url, probe))
            wpid = platform.pids["workflow"]
            before = rss(wpid)
            peak = before[0]
            loops = [asyncio.create_task(b.signals(instance)), asyncio.create_task(b.starts())]
            await asyncio.sleep(3)
            t_start = time.time()
            r = await http.post("/workflows/big-" + kind + "/run", json={}, headers=a)
            t_answer = time.time()
            print(f"A's start: {r.status_code} in {t_answer - t_start:.2f} s", flush=True)
            run_ids.add(r.json()["run_id"])
            while not done.done():
                peak = max(peak, rss(wpid)[0])
                await asyncio.sleep(0.05)
                if time.time() - t_start > WATCH:
                    break
            t_end = time.time()
            await asyncio.sleep(3)
            b.stop = True
            await asyncio.gather(*loops)
            probe.stop.set()
            if probe_task is not None:
                await probe_task
            else:
                thread.join()
            after = rss(wpid)
        await nc.close()
        if env is not None:
            shutil.copy(work / "workflow.log", "/tmp/bigrun-workflow.log")
        ended = done.result() if done.done() else {"status": f"still running after {WATCH:.0f} s"}
        print(f"A's run ended {ended.get('status')} {t_end - t_start:.1f} s after its POST")
        print(f"workflow RSS: {before[0]} MiB before, {peak} MiB peak sampled, "
              f"{after[0]} after, VmHWM {after[1]} MiB")  # fmt: skip
        print(f"longest lock hold seen by the probe: {probe.worst:.2f} s")
        holds = [(round(at - t_start, 2), round(w, 2)) for at, w in probe.samples if w > 0.2]
        print(f"probe waits over 0.2 s (s after A's POST, s waited): {holds[:30]}")
        for what in ("signal", "start"):
            during = [x for x in b.log if x[0] == what]
            bad = [x for x in during if x[3] not in (200, 202)]
            worst = max(during, key=lambda x: x[2])
            print(f"B {what}s: {len(during)}, worst {worst[2]:.2f} s at "
                  f"{worst[1] - t_start:+.2f} s, non-2xx {len(bad)}")  # fmt: skip
            for x in bad[:5]:
                print(f"   {x[3]} at {x[1] - t_start:+.2f} s after {x[2]:.2f} s: {x[4]}")
            slow = [(round(x[1] - t_start, 2), round(x[2], 2)) for x in during if x[2] > 0.5]
            print(f"   over 0.5 s: {slow[:20]}")


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0] if args else "sqlite", args[1] if len(args) > 1 else "notify",
                     int(args[2]) if len(args) > 2 else None))  # fmt: skip
