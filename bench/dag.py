"""DAG workflow runs end to end: HTTP start -> durable steps -> scripted agents -> run completed.

Two workflows, created over the gateway's seed-004 routes: a 4-step linear chain and a
1 -> 8 parallel -> 1 fan-out, every step a `dispatch` to the scripted `default` agent of the
agent-runner. A run ends when its `workflow.run_completed` event arrives on NATS (one
subscription, no polling). Latency is one run's, from the POST to that event. Ops are steps:
the agent calls, 4 per linear run and 10 per fan-out run (the parallel step grouping the 8 is
not counted).

Every start carries an `Idempotency-Key`, so a start that failed (503 when the workflow
service is too busy to answer within the gateway's request timeout, or a dropped connection)
is retried without starting a second run; the note counts such retries. The note also gives
each process's CPU time per step (Linux), which says where the time goes.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import nats
from nats.aio.msg import Msg

from baton_workflow.settings import SHIPPED_DEFINITIONS
from bench.http import LeanHttp
from bench.measure import budget_note, concurrent, cpu_note, median_of, sequential, with_cpu
from bench.platform import Platform, running_platform
from bench.postgres import fresh_database
from bench.registry import Options, Row, case

TARGET_STEPS_PER_S = 1500  # issue 6, with 100 runs in flight
IN_FLIGHT = 100
START_ATTEMPTS = 10
USER = "bench"


def _dispatch(step_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "agent": "default", "prompt": f"step {step_id}: say ok", **extra}


LINEAR: dict[str, Any] = {
    "name": "bench-linear",
    "description": "a -> b -> c -> d, trivial scripted agents",
    "steps": [
        _dispatch("a"),
        _dispatch("b", dependsOn=["a"]),
        _dispatch("c", dependsOn=["b"]),
        _dispatch("d", dependsOn=["c"]),
    ],
}
FANOUT: dict[str, Any] = {
    "name": "bench-fanout",
    "description": "start -> 8 parallel sub-steps -> end, trivial scripted agents",
    "steps": [
        _dispatch("start"),
        {
            "id": "fan",
            "type": "parallel",
            "dependsOn": ["start"],
            "parallel": [_dispatch(f"p{i}") for i in range(8)],
        },
        _dispatch("end", dependsOn=["fan"]),
    ],
}
STEPS = {"bench-linear": 4, "bench-fanout": 10}


class Runner:
    """Starts runs over HTTP and learns that they ended from `workflow.run_completed` events."""

    def __init__(self, platform: Platform, http: LeanHttp) -> None:
        self.http = http
        self.headers = platform.headers(USER)
        self.retried = 0
        # run id -> its end (status, error); made by whichever side comes first, since the
        # completion may be published before the 202 reaches us.
        self.ends: dict[str, asyncio.Future[tuple[str, str | None]]] = {}

    def _end(self, run_id: str) -> asyncio.Future[tuple[str, str | None]]:
        if run_id not in self.ends:
            self.ends[run_id] = asyncio.get_running_loop().create_future()
        return self.ends[run_id]

    async def on_completed(self, msg: Msg) -> None:
        """Resolve the run's end from its `workflow.run_completed` event."""
        body = json.loads(msg.data)
        end = self._end(body["instance_id"])
        if not end.done():
            end.set_result((body["status"], body.get("error")))

    async def create(self, document: dict[str, Any]) -> None:
        """Save a workflow definition."""
        reply = await self.http.post("/workflows", json=document, headers=self.headers)
        if reply.status_code != 201:
            raise RuntimeError(f"creating {document['name']}: {reply.status_code} {reply.text}")

    async def run(self, name: str) -> None:
        """One run, from the POST until it has completed; raises unless it succeeded."""
        run_id = await self._start(name)
        try:
            status, error = await asyncio.wait_for(self._end(run_id), 120)
        finally:
            self.ends.pop(run_id, None)
        if status != "success":
            raise RuntimeError(f"run {run_id} of {name} ended {status}: {error}")

    async def _start(self, name: str) -> str:
        headers = {**self.headers, "Idempotency-Key": uuid.uuid4().hex}
        problem = ""
        for _ in range(START_ATTEMPTS):
            try:
                reply = await self.http.post(f"/workflows/{name}/run", json={}, headers=headers)
            except (OSError, TimeoutError, asyncio.IncompleteReadError) as exc:  # connection lost
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if reply.status_code == 202:
                    return str(reply.json()["run_id"])
                problem = f"{reply.status_code} {reply.text}"
                if reply.status_code != 503:
                    break
            self.retried += 1
        raise RuntimeError(f"run of {name}: {problem}")


@asynccontextmanager
async def runner(workflow_url: str, agent_url: str) -> AsyncIterator[Runner]:
    """The platform with the agent-runner, a gateway client, and the completion listener."""
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as tmp:
        work = Path(tmp)
        # The shipped conversation workflows: the service refuses to start without any.
        async with running_platform(work, workflow_url, SHIPPED_DEFINITIONS, agent_url) as platform:
            nc = await nats.connect(platform.nats_url)
            try:
                async with LeanHttp(platform.gateway_url, IN_FLIGHT, timeout=60) as http:
                    r = Runner(platform, http)
                    await nc.subscribe("workflow.evt.run_completed.>", cb=r.on_completed)
                    await nc.flush()
                    yield r
            finally:
                await nc.close()


def _as_steps(
    row: Row, name: str, cpu: dict[str, float], retried: int, target: bool = False,
    trials: str = "",
) -> Row:  # fmt: skip
    """A row of runs as a row of steps: ops and ops/s count steps; the note gives runs/s."""
    steps = row.ops * STEPS[name]
    note = f"{row.ops_per_s:,.1f} runs/s; latency is one run's{trials}"
    note += cpu_note(cpu, steps, "step")
    if retried:
        note += f"; {retried} starts failed (503 or connection) and were retried"
    if target:
        met = "met" if row.ops_per_s * STEPS[name] >= TARGET_STEPS_PER_S else "not met"
        note += f"; target >= {TARGET_STEPS_PER_S:,} steps/s with {IN_FLIGHT} in flight: {met}"
        note += budget_note(cpu, steps, "step", TARGET_STEPS_PER_S)
    return replace(row, ops=steps, ops_per_s=row.ops_per_s * STEPS[name], note=note)


async def _rows(r: Runner, name: str, label: str, opts: Options) -> list[Row]:
    rows = []
    r.retried = 0
    solo, cpu = await with_cpu(
        lambda: sequential(f"{label}, sequential", opts.size(100, 10), lambda i: r.run(name))
    )
    rows.append(_as_steps(solo, name, cpu, r.retried))
    r.retried = 0  # over every trial of the row
    many, cpu, trials = await median_of(
        opts.target_trials,
        lambda: concurrent(
            f"{label}, {IN_FLIGHT} runs in flight",
            IN_FLIGHT,
            opts.size(5, 1),
            lambda w, i: r.run(name),
        ),
        "ops_per_s",
        "runs/s",
    )
    rows.append(_as_steps(many, name, cpu, r.retried, target=True, trials=trials))
    return rows


@case("dag.run.postgres", "DAG runs over HTTP: 4-step linear and 1 -> 8 -> 1 fan-out, PG")
async def run_postgres(opts: Options) -> list[Row]:
    async with (
        fresh_database(opts.postgres_url) as workflow_url,
        fresh_database(opts.postgres_url) as agent_url,
        runner(workflow_url, agent_url) as r,
    ):
        await r.create(LINEAR)
        await r.create(FANOUT)
        for _ in range(5):  # warm every process's pools and caches
            await r.run("bench-linear")
            await r.run("bench-fanout")
        rows = await _rows(r, "bench-linear", "linear a -> b -> c -> d (4 steps)", opts)
        rows += await _rows(r, "bench-fanout", "fan-out 1 -> 8 -> 1 (10 steps)", opts)
        return rows
