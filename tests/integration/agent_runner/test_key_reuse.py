"""An idempotency key answers the request it was recorded for, and no other: the same key with
another message, agent, step or prompt is `conflict`, never the first request's answer. An
honest retry (the same request, its history or deadline moved on) still gets its record, and
so does a key recorded before the logs kept what was asked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from nats.aio.client import Client
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql, sql_logs
from baton_agent_runner.bootstrap import AgentRunnerApp
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import KeyReused
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, HistoryEntry, RunAgent, RunTask, TaskResult
from baton_eventstore import create_engine, migrate
from baton_messaging import request

from .conftest import CountingFactory, stay_reply


def turn(message: str = "Hello", **extra: object) -> RunAgent:
    fields: dict[str, object] = {
        "user_id": "alice",
        "agent": "greeter",
        "instance_id": "i-1",
        "current_step": "greeting",
        "message": message,
        "idempotency_key": "i-1:m-1",
        "can_complete": True,
    }
    return RunAgent.model_validate({**fields, **extra})


def task(prompt: str = "Research the market", **extra: object) -> RunTask:
    fields: dict[str, object] = {
        "user_id": "alice",
        "agent": "default",
        "run_id": "r-1",
        "step_id": "research",
        "prompt": prompt,
        "idempotency_key": "r-1:research:1",
    }
    return RunTask.model_validate({**fields, **extra})


async def refused(client: Client, cmd: RunAgent | RunTask) -> RemoteError:
    with pytest.raises(RemoteError) as caught:
        await request(client, cmd, timeout=10.0)
    return caught.value


async def test_another_message_under_a_recorded_key_is_a_conflict_not_the_first_reply(
    runner: AgentRunnerApp, client: Client, counting: type[CountingFactory]
) -> None:
    # The workflow failed after the agent answered "Hello" (its append, or the gateway timed
    # out); the client then sends another text under the same client_message_id.
    first = await request(client, turn("Hello"), timeout=10.0)
    assert isinstance(first, AgentReply) and first.workflow_signal.action == "stay"
    error = await refused(client, turn("Got it, let's go"))
    assert error.code is ErrorCode.CONFLICT
    assert [d.field for d in error.body.details] == ["idempotency_key"]
    assert "i-1:m-1" in error.body.message
    assert counting.calls == 1
    # Another agent or step under the key is another request too (the instance moved on).
    moved = turn("Hello", agent="discovery", current_step="discovery")
    assert (await refused(client, moved)).code is ErrorCode.CONFLICT
    # The honest retry: the same text (outer spaces aside), history and pre-check moved on.
    retry = turn(" Hello\n", history=[HistoryEntry(role="user", text="hi")], can_complete=False)
    assert await request(client, retry, timeout=10.0) == first
    assert counting.calls == 1


async def test_another_prompt_under_a_recorded_step_key_is_a_conflict_not_the_first_result(
    runner: AgentRunnerApp, client: Client
) -> None:
    first = await request(client, task(), timeout=10.0)
    assert isinstance(first, TaskResult) and not first.replayed
    for other in (task("Research the weather"), task(agent="hisui"), task(context="more")):
        error = await refused(client, other)
        assert error.code is ErrorCode.CONFLICT, other
        assert [d.field for d in error.body.details] == ["idempotency_key"]
    # A retried step gets its recorded result, whatever its budget or time left now.
    again = await request(client, task(budget_usd=1.0, timeout_seconds=5.0), timeout=10.0)
    assert again == first.model_copy(update={"replayed": True})


async def test_the_logs_refuse_another_request_under_a_key_on_every_path(
    engine: AsyncEngine,
) -> None:
    now = lambda: datetime.now(UTC)  # noqa: E731
    a, b = sql_logs.SqlReplyLog(engine, now, "a"), sql_logs.SqlReplyLog(engine, now, "b")
    assert (await a.claim("alice", "k", 3600.0, "asked")).mine
    assert await a.put("alice", "k", stay_reply("a's"), "asked") == stay_reply("a's")
    # Two replicas both called the model (the race the claims leave open): the second put
    # finds the first answer recorded, for another request.
    with pytest.raises(KeyReused):
        await b.put("alice", "k", stay_reply("b's"), "other")
    with pytest.raises(KeyReused):
        await b.claim("alice", "k", 3600.0, "other")
    with pytest.raises(KeyReused):
        await b.get("alice", "k", "other")
    assert await b.put("alice", "k", stay_reply("b's"), "asked") == stay_reply("a's")
    assert (await b.claim("alice", "k", 3600.0, "asked")).recorded == stay_reply("a's")
    tasks = sql_logs.SqlTaskLog(engine, now, "a")
    step = TaskCall(agent="default", run_id="r", step_id="s", prompt="p")
    result = TaskResult(output="first", agent="default", model="scripted")
    await tasks.put("alice", "k", step, result, "asked")
    with pytest.raises(KeyReused):
        await tasks.put("alice", "k", step, result.model_copy(update={"output": "x"}), "other")
    assert await tasks.get("alice", "k", "asked") == result


async def test_a_key_recorded_before_the_logs_kept_what_was_asked_still_answers(
    database_url: str,
) -> None:
    engine = create_engine(database_url)
    try:
        assert await migrate(engine, sql.COMPONENT, sql.STEPS[:7]) == 7
        async with engine.begin() as conn:  # a reply and a result as version 7 wrote them
            await conn.execute(
                text(
                    "INSERT INTO agent_replies (user_id, idempotency_key, reply, created_at) "
                    "VALUES ('alice', 'old', :reply, :at)"
                ),
                {"reply": stay_reply("old").model_dump_json(), "at": datetime.now(UTC)},
            )
            await conn.execute(
                text(
                    "INSERT INTO agent_task_results (user_id, idempotency_key, run_id, step_id, "
                    "result, created_at) VALUES ('alice', 'old', 'r', 's', :result, :at)"
                ),
                {
                    "result": TaskResult(output="old", agent="default").model_dump_json(),
                    "at": datetime.now(UTC),
                },
            )
        assert await migrate(engine, sql.COMPONENT, sql.STEPS) == len(sql.STEPS)
        now = lambda: datetime.now(UTC)  # noqa: E731
        replies, tasks = sql_logs.SqlReplyLog(engine, now), sql_logs.SqlTaskLog(engine, now)
        assert (await replies.claim("alice", "old", 3600.0, "any")).recorded == stay_reply("old")
        assert await replies.get("alice", "old", "any") == stay_reply("old")
        assert (await tasks.claim("alice", "old", 3600.0, "any")).recorded is not None
    finally:
        await engine.dispose()
