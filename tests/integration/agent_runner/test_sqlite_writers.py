"""SQLite: the agent-runner's own writers queue on the process's lock, never in SQLite's
sleeping busy handler.

With the busy timeout at zero, a writer that meets another one fails at once with "database
is locked" instead of sleeping 1-100 ms; so this test fails whenever two of the stores' writes
(inbox items, promotions, facts, replies, task results) reach SQLite at the same time.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from baton_agent_runner.adapters import sql, sql_logs, sql_stores
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.domain.task import TaskCall
from baton_contracts.agent_api import AgentReply, TaskResult, TokenUsage, WorkflowSignal
from baton_eventstore import migrate

from ...sqlite_engines import impatient_sqlite_engine

N = 20


def _now() -> datetime:
    return datetime.now(UTC)


def _reply(n: int) -> AgentReply:
    return AgentReply(
        message=f"reply {n}",
        workflow_signal=WorkflowSignal(action="stay"),
        usage=TokenUsage(),
        agent="greeter",
        model="scripted",
    )


def _result(n: int) -> TaskResult:
    return TaskResult(output=f"out {n}", usage=TokenUsage(), agent="default", model="scripted")


async def test_concurrent_writes_of_every_store_all_succeed(tmp_path: Path) -> None:
    engine = impatient_sqlite_engine(tmp_path / "agent.db")
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    inbox, memory = sql_stores.SqlInboxStore(engine, _now), sql_stores.SqlMemoryStore(engine, _now)
    replies, tasks = sql_logs.SqlReplyLog(engine, _now), sql_logs.SqlTaskLog(engine, _now)
    try:
        for n in range(N):
            await inbox.add(f"u{n}", [NewInboxItem(f"d{n}", f"later {n}", "deferred")])
        writes = [inbox.add(f"u{n}", [NewInboxItem(f"i{n}", f"item {n}", "new")]) for n in range(N)]
        writes += [inbox.promote_deferred(f"u{n}") for n in range(N)]
        writes += [memory.put_fact(f"u{n}", "priorities", "work", f"w{n}") for n in range(N)]
        writes += [replies.put(f"u{n}", "k", _reply(n)) for n in range(N)]
        call = TaskCall(agent="default", run_id="r", step_id="a", prompt="p")
        writes += [tasks.put(f"u{n}", "k", call, _result(n)) for n in range(N)]
        await asyncio.gather(*writes)
        for n in range(N):
            assert await inbox.count(f"u{n}", "new") == 2
            assert await memory.facts(f"u{n}", "priorities") == {"work": f"w{n}"}
            assert await replies.get(f"u{n}", "k") == _reply(n)
            assert await tasks.get(f"u{n}", "k") == _result(n)
    finally:
        await engine.dispose()
