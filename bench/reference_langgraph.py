"""The issues' other yardstick, measured here: LangGraph with its PostgreSQL checkpointer.

Issue 3 says LangGraph "runs about 550 durable steps/s and resumes an interrupted thread in
3.4 ms p50 / 7.5 ms p99, in one process", and issue 6 says "about 550" steps/s too, both on
the hardware their targets were set on. This case runs the same kinds of work on this machine,
so Baton's rows can be read against it: a 4-node linear graph (issue 6's linear workflow) and
an interrupted thread resumed by one value (issue 3's signal and transition), each once at a
time and with many threads at once.

Every step is as durable as Baton's: `durability="sync"` writes each step's checkpoint before
the next step starts (LangGraph's default, "async", writes it while the next step runs). The
checkpointer shares a psycopg pool of 20 connections (each Baton service's pool holds 20), set
up as LangGraph's documentation says. Only `make bench` installs LangGraph (the `bench`
dependency group); without it the case is skipped.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, TypedDict

from bench.measure import concurrent, cpu_note, sequential, with_cpu
from bench.postgres import asyncpg_dsn, fresh_database
from bench.registry import Options, Row, Skip, case

try:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, interrupt
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool
except ImportError:  # pragma: no cover - only `make bench` installs the group
    AsyncPostgresSaver = None

LINEAR_NODES = ("a", "b", "c", "d")
RUNS_IN_FLIGHT = 100  # issue 6's concurrency
THREADS_WAITING = 50  # issue 3's concurrency
CONNECTIONS = 20  # as many as each Baton service's pool holds


class Count(TypedDict):
    n: int


def _step(state: Count) -> dict[str, int]:
    return {"n": state["n"] + 1}


def _wait_for_signal(state: Count) -> dict[str, int]:
    """Stop the thread until a value comes back, then count it and wait again."""
    interrupt({"waiting_at": state["n"]})
    return {"n": state["n"] + 1}


def _linear() -> Any:
    graph = StateGraph(Count)
    previous = START
    for node in LINEAR_NODES:
        graph.add_node(node, _step)
        graph.add_edge(previous, node)
        previous = node
    graph.add_edge(previous, END)
    return graph


def _waiting() -> Any:
    graph = StateGraph(Count)
    graph.add_node("wait", _wait_for_signal)
    graph.add_edge(START, "wait")
    graph.add_edge("wait", "wait")
    return graph


@asynccontextmanager
async def _checkpointer(url: str, connections: int) -> AsyncIterator[Any]:
    pool = AsyncConnectionPool(
        asyncpg_dsn(url),
        min_size=connections,
        max_size=connections,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    await pool.open()
    try:
        saver = AsyncPostgresSaver(pool)
        await saver.setup()
        yield saver
    finally:
        await pool.close()


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _noted(row: Row, cpu: dict[str, float], unit: str, per_op: int = 1, label: str = "") -> Row:
    ops = row.ops * per_op
    note = f"{row.ops_per_s:,.1f} runs/s; latency is one run's" if per_op > 1 else ""
    note += cpu_note(cpu, ops, unit)
    return replace(
        row,
        label=label or row.label,
        ops=ops,
        ops_per_s=row.ops_per_s * per_op,
        note=note.removeprefix("; "),
    )


@case(
    "reference.langgraph",
    "the issues' yardstick: LangGraph + PostgreSQL checkpointer, linear graph and resumes",
)
async def langgraph_postgres(opts: Options) -> list[Row]:
    if AsyncPostgresSaver is None:
        raise Skip("LangGraph is not installed: `make bench` installs the bench group")
    async with (
        fresh_database(opts.postgres_url) as url,
        _checkpointer(url, CONNECTIONS) as saver,
    ):
        linear = _linear().compile(checkpointer=saver)
        waiting = _waiting().compile(checkpointer=saver)
        rows = await _linear_rows(linear, opts)
        rows += await _resume_rows(waiting, opts)
        return rows


async def _linear_rows(app: Any, opts: Options) -> list[Row]:
    async def run(*_: int) -> None:
        out = await app.ainvoke({"n": 0}, _config(uuid.uuid4().hex), durability="sync")
        assert out["n"] == len(LINEAR_NODES), out

    label = "linear a -> b -> c -> d (4 nodes)"
    await sequential("warm-up", opts.size(20, 2), run)
    solo, cpu = await with_cpu(lambda: sequential(f"{label}, sequential", opts.size(200, 10), run))
    many, many_cpu = await with_cpu(
        lambda: concurrent(
            f"{label}, {RUNS_IN_FLIGHT} runs in flight", RUNS_IN_FLIGHT, opts.size(5, 1), run
        )
    )
    steps = len(LINEAR_NODES)
    return [_noted(solo, cpu, "step", steps), _noted(many, many_cpu, "step", steps)]


async def _resume_rows(app: Any, opts: Options) -> list[Row]:
    threads = [uuid.uuid4().hex for _ in range(THREADS_WAITING)]
    for thread in threads:  # each thread stops at its first interrupt
        await app.ainvoke({"n": 0}, _config(thread), durability="sync")

    async def resume(thread: str) -> None:
        out = await app.ainvoke(Command(resume="go on"), _config(thread), durability="sync")
        assert "__interrupt__" in out, out

    await sequential("warm-up", opts.size(20, 2), lambda i: resume(threads[0]))
    solo, cpu = await with_cpu(
        lambda: sequential(
            "resume an interrupted thread with one value, sequential",
            opts.size(400, 20),
            lambda i: resume(threads[0]),
        )
    )
    many, many_cpu = await with_cpu(
        lambda: concurrent(
            f"the same, {THREADS_WAITING} threads at once",
            THREADS_WAITING,
            opts.size(40, 2),
            lambda w, i: resume(threads[w]),
        )
    )
    return [_noted(solo, cpu, "resume"), _noted(many, many_cpu, "resume")]
