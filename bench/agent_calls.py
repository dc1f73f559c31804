"""The agent-runner alone: scripted `agent.cmd.run` turns and `agent.cmd.task` steps over NATS.

One real `python -m baton_agent_runner` process (scripted model, Mem0 on a Qdrant folder, its
tables on a fresh PostgreSQL database) behind an embedded NATS server; the bench client sends
requests straight to it. A turn is a greeter turn of a new conversation (a fresh idempotency
key each); a task is a `dispatch` step of the `default` agent with a trivial prompt (a fresh
idempotency key each, so every one calls the model and records its result). The note gives
the agent-runner process's CPU time per call (Linux), which is what issues 4 and 6 budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import nats
from nats.aio.client import Client

from baton_contracts import HEALTH_QUERIES, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent, RunTask, TaskResult
from baton_messaging import request
from baton_messaging.embedded import EmbeddedNatsServer
from bench.measure import concurrent, process_cpu_seconds, sequential
from bench.platform import spawn, stop_process
from bench.postgres import fresh_database
from bench.registry import Options, Row, case

IN_FLIGHT = 50
TIMEOUT = 30.0
TARGET_CPU_MS = 1.0  # per scripted call, so that a whole step or turn fits in 1-2 ms


@contextlib.asynccontextmanager
async def _agent_runner(work: Path, database_url: str) -> AsyncIterator[tuple[Client, int]]:
    """NATS and `python -m baton_agent_runner`, a client connection, and the runner's pid."""
    server = EmbeddedNatsServer(store_dir=work / "nats")
    server.start()
    env = {
        "BATON_NATS_URL": server.url,
        "BATON_LOG_LEVEL": "WARNING",
        "BATON_DATABASE_URL": database_url,
        "BATON_QDRANT_PATH": str(work / "qdrant"),
    }
    process = spawn("baton_agent_runner", env, work / "agent-runner.log")
    try:
        nc = await nats.connect(server.url)
        try:
            await _wait_ready(nc, process)
            yield nc, process.pid
        finally:
            await nc.close()
    finally:
        stop_process(process)
        server.stop()


async def _wait_ready(nc: Client, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError("the agent-runner exited during start; see its bench log")
        with contextlib.suppress(RemoteError):
            await request(nc, HEALTH_QUERIES["agent"].model_validate({}), timeout=0.5)
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the agent-runner did not become ready")


def _turn(key: str) -> RunAgent:
    return RunAgent(
        user_id=f"user-{key}",
        agent="greeter",
        instance_id=f"conv-{key}",
        current_step="greeting",
        message="Hi! What is this about?",
        idempotency_key=key,
    )


def _task(key: str) -> RunTask:
    return RunTask(
        user_id="bench",
        agent="default",
        run_id=f"run-{key}",
        step_id="a",
        prompt="say ok",
        idempotency_key=key,
    )


async def _call(nc: Client, message: RunAgent | RunTask) -> None:
    reply = await request(nc, message, timeout=TIMEOUT)
    assert isinstance(reply, AgentReply | TaskResult) and not getattr(reply, "replayed", False)


async def _with_cpu(pid: int, measure: Callable[[], Awaitable[Row]]) -> Row:
    before = process_cpu_seconds(pid)
    row = await measure()
    per_call = (process_cpu_seconds(pid) - before) * 1000 / row.ops
    verdict = "met" if per_call <= TARGET_CPU_MS else "not met"
    note = f"agent-runner CPU ms per call: {per_call:.2f} (target ~{TARGET_CPU_MS:g}: {verdict})"
    return replace(row, note=note)


async def _rows(nc: Client, pid: int, kind: str, make: Callable[[str], RunAgent | RunTask],
                opts: Options) -> list[Row]:  # fmt: skip
    batch = uuid.uuid4().hex[:8]

    def key(*parts: int) -> str:
        return f"{batch}-{'-'.join(map(str, parts))}"

    solo = await _with_cpu(
        pid,
        lambda: sequential(
            f"{kind}, sequential", opts.size(500, 50), lambda i: _call(nc, make(key(0, i)))
        ),
    )
    many = await _with_cpu(
        pid,
        lambda: concurrent(
            f"{kind}, {IN_FLIGHT} in flight",
            IN_FLIGHT,
            opts.size(40, 4),
            lambda w, i: _call(nc, make(key(1, w, i))),
        ),
    )
    return [solo, many]


@case("agent.call.scripted", "agent-runner alone: scripted turns and DAG tasks over NATS, PG")
async def call_scripted(opts: Options) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as tmp:
        async with (
            fresh_database(opts.postgres_url) as url,
            _agent_runner(Path(tmp), url) as (nc, pid),
        ):
            for n in range(50):  # warm the pools, caches and agents
                await _call(nc, _turn(f"warm-{n}"))
                await _call(nc, _task(f"warm-{n}"))
            rows = await _rows(nc, pid, "agent.cmd.run greeter turn", _turn, opts)
            rows += await _rows(nc, pid, "agent.cmd.task dispatch step", _task, opts)
            return rows
