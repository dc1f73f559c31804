"""Replicas sharing the reply and task logs call the model once per key: the first claims the
key, the others wait for its answer; a claim given up or run out lets the next one call.
On SQLite and PostgreSQL, the logs alone and two task runners sharing one database.

A claim lasts a duration, timed by one clock: the replicas' (a test's `Clock`) on SQLite, the
database server's on PostgreSQL, where time passes for the claims by moving their expiries
back (`_later`)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql, sql_logs
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.bootstrap import build
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.task import ModelChoice, ModelPrice, TaskCall
from baton_agent_runner.service.ports import Claim, ModelFailed, TaskAnswer
from baton_agent_runner.service.tasks import TaskRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, CancelTask, TokenUsage
from baton_eventstore import create_engine, migrate

from ...task_requests import research_step
from .conftest import Clock, settings, stay_reply

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
HELD = 300.0
"""Seconds a claim is taken for (5 minutes)."""


def _replicas(engine: AsyncEngine, clock: Clock) -> tuple[sql_logs.SqlReplyLog, ...]:
    return tuple(sql_logs.SqlReplyLog(engine, clock, holder) for holder in ("a", "b"))


@pytest.fixture
async def postgres_engine(postgres_url: str) -> AsyncIterator[AsyncEngine]:
    """The agent-runner's tables on PostgreSQL, for the cases only its server's clock or its
    concurrency shows."""
    engine = create_engine(postgres_url)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    try:
        yield engine
    finally:
        await engine.dispose()


# --- the logs ------------------------------------------------------------------------------


async def test_the_first_claim_is_taken_and_another_replica_sees_it_held(
    engine: AsyncEngine,
) -> None:
    clock = Clock(T0)
    a, b = _replicas(engine, clock)
    assert await a.claim("alice", "k", HELD) == Claim(mine=True)
    held = await b.claim("alice", "k", 540.0)
    assert (held.recorded, held.mine) == (None, False)
    # When a's claim runs out, by the clock that times claims: 5 minutes from a's claim.
    assert held.held_until is not None
    assert timedelta(seconds=HELD - 5) < held.held_until - await _now(engine, clock)
    assert held.held_until - await _now(engine, clock) <= timedelta(seconds=HELD)
    assert await a.claim("alice", "k", HELD) == Claim(mine=True)  # its own, renewed
    # Another user's key, and the same key of the other log, are other claims.
    assert await b.claim("bob", "k", HELD) == Claim(mine=True)
    tasks = sql_logs.SqlTaskLog(engine, Clock(T0), "b")
    assert (await tasks.claim("alice", "k", HELD)).mine


async def test_recording_gives_the_claim_up_and_the_waiting_replica_finds_the_reply(
    engine: AsyncEngine,
) -> None:
    a, b = _replicas(engine, Clock(T0))
    await a.claim("alice", "k", HELD)
    assert await a.put("alice", "k", stay_reply("a's")) == stay_reply("a's")
    assert await b.claim("alice", "k", HELD) == Claim(recorded=stay_reply("a's"))
    assert await _claims(engine) == []


async def test_a_released_claim_is_free_at_once_and_only_its_holder_releases_it(
    engine: AsyncEngine,
) -> None:
    a, b = _replicas(engine, Clock(T0))
    await a.claim("alice", "k", HELD)
    await b.release("alice", "k")  # not b's: nothing happens
    assert (await b.claim("alice", "k", HELD)).mine is False
    await a.release("alice", "k")
    assert await b.claim("alice", "k", HELD) == Claim(mine=True)


async def test_a_claim_that_ran_out_is_taken_over(engine: AsyncEngine) -> None:
    clock = Clock(T0)
    a, b = _replicas(engine, clock)
    await a.claim("alice", "k", HELD)  # then replica a dies
    await _later(engine, clock, timedelta(seconds=HELD - 1))
    assert (await b.claim("alice", "k", HELD)).mine is False
    await _later(engine, clock, timedelta(seconds=2))
    assert await b.claim("alice", "k", HELD) == Claim(mine=True)
    # The dead one's put, had it come so late, records, but leaves b's claim alone.
    assert await a.put("alice", "k", stay_reply("late")) == stay_reply("late")
    assert await _claims(engine) == [("replies", "alice", "k", "b")]


async def test_a_prune_deletes_the_claims_that_ran_out_and_keeps_the_others(
    engine: AsyncEngine,
) -> None:
    clock = Clock(T0)
    a, _ = _replicas(engine, clock)
    tasks = sql_logs.SqlTaskLog(engine, clock, "a")
    await a.claim("alice", "dead", 1.0)
    await a.claim("alice", "live", HELD)
    await tasks.claim("alice", "dead", 1.0)
    await _later(engine, clock, timedelta(seconds=2))
    assert await a.prune(T0 - timedelta(days=7)) == 0  # no log rows: claims are not counted
    assert await _claims(engine) == [
        ("replies", "alice", "live", "a"),
        ("tasks", "alice", "dead", "a"),
    ]


@pytest.mark.postgres
async def test_many_replicas_claiming_one_key_at_once_give_it_to_one(
    postgres_engine: AsyncEngine,
) -> None:
    engine = postgres_engine
    logs = [sql_logs.SqlTaskLog(engine, Clock(T0), f"r{n}") for n in range(12)]
    found = await asyncio.gather(*(log.claim("alice", "k", HELD) for log in logs))
    assert sum(claim.mine for claim in found) == 1
    async with engine.connect() as conn:
        kind = await conn.scalar(
            text("SELECT relpersistence::text FROM pg_class WHERE relname = 'agent_claims'")
        )
    assert kind == "u"  # UNLOGGED: a claim costs no WAL flush


@pytest.mark.postgres
async def test_a_replica_whose_clock_runs_ahead_does_not_take_a_claim_held(
    postgres_engine: AsyncEngine,
) -> None:
    # Replicas on two hosts whose clocks are a minute apart (or one host's clock stepped a
    # minute forward): more than the margin a task's claim is kept past its call (8 s). Each
    # claim's expiry was its holder's clock and was read on the asker's: the replica ahead
    # took the key over while its holder was calling the model, and paid the model again.
    engine = postgres_engine
    host = Clock(datetime.now(UTC))
    ahead = Clock(host.at + timedelta(seconds=60))
    holder, other = (
        sql_logs.SqlTaskLog(engine, host, "a"),
        sql_logs.SqlTaskLog(engine, ahead, "b"),
    )
    assert (await holder.claim("alice", "k", 8.0)).mine
    assert (await other.claim("alice", "k", 8.0)).mine is False
    assert await other.prune(T0) == 0  # its prune leaves the claim held, too
    assert await _claims(engine) == [("tasks", "alice", "k", "a")]
    assert (await holder.claim("alice", "k", 8.0)).mine  # still the holder's


@pytest.mark.postgres
async def test_a_claim_that_waited_for_the_holders_put_returns_the_value_it_recorded(
    postgres_engine: AsyncEngine,
) -> None:
    # Replica b asks again for a key replica a holds while a's put (its reply recorded, its
    # claim dropped) is being committed. b's statement read the log as it began, without the
    # reply; its insert of the claim waited for a's commit, then found the key free and took
    # it: b called the model again for a key whose answer was recorded (under a loaded host
    # about one waiting replica in ten, whose look every half second met a's commit).
    engine = postgres_engine
    a, b = _replicas(engine, Clock(T0))
    assert (await a.claim("alice", "k", HELD)).mine
    async with engine.connect() as put:  # what a's put does, its commit held back
        await put.execute(
            text(
                "INSERT INTO agent_replies (user_id, idempotency_key, reply, created_at) "
                "VALUES ('alice', 'k', CAST(:reply AS json), :at)"
            ),
            {"reply": stay_reply("a's").model_dump_json(), "at": T0},
        )
        await put.execute(text("DELETE FROM agent_claims WHERE holder = 'a'"))
        asking = asyncio.create_task(b.claim("alice", "k", HELD))
        await _until_a_statement_waits_for_a_lock(engine)
        await put.commit()
    assert await asking == Claim(recorded=stay_reply("a's"))
    assert await _claims(engine) == []  # b's claim, taken for nothing, is given back


async def test_on_sqlite_no_put_commits_between_a_claims_look_and_its_claim(
    sqlite_url: str,
) -> None:
    # Two processes on one file (two engines here). pysqlite began b's transaction only before
    # its INSERT: a's put, committed right after b looked for the reply, went unseen, and b
    # took the key a's put had freed and called the model again.
    engines = create_engine(sqlite_url), create_engine(sqlite_url)
    await migrate(engines[0], sql.COMPONENT, sql.STEPS)
    try:
        a, b = (sql_logs.SqlReplyLog(e, Clock(T0), h) for e, h in zip(engines, "ab", strict=True))
        assert (await a.claim("alice", "k", HELD)).mine
        puts: list[bool] = []

        @event.listens_for(engines[1].sync_engine, "after_cursor_execute")
        def a_puts(_conn: object, _cursor: object, statement: str, *_: object) -> None:
            if not puts and statement.startswith("SELECT") and "agent_replies" in statement:
                puts.append(_put_at_once(make_url(sqlite_url).database or "", stay_reply("a's")))

        claimed = await b.claim("alice", "k", HELD)
        assert (claimed.mine, claimed.recorded) == (False, None)  # a's claim, still held
        assert puts == [False]  # b's claim held the file: a's put could not come in between
        assert await a.put("alice", "k", stay_reply("a's")) == stay_reply("a's")
        assert await b.claim("alice", "k", HELD) == Claim(recorded=stay_reply("a's"))
    finally:
        for engine in engines:
            await engine.dispose()


def _put_at_once(path: str, reply: AgentReply) -> bool:
    """What replica a's put does, from another connection, unless the file is locked."""
    conn = sqlite3.connect(path, timeout=0)
    try:
        with conn:
            conn.execute(
                "INSERT INTO agent_replies (user_id, idempotency_key, reply, created_at) "
                "VALUES ('alice', 'k', ?, ?)",
                (reply.model_dump_json(), T0.isoformat()),
            )
            conn.execute("DELETE FROM agent_claims WHERE holder = 'a'")
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return False
    finally:
        conn.close()
    return True


async def _until_a_statement_waits_for_a_lock(engine: AsyncEngine) -> None:
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    async with asyncio.timeout(30), engine.connect() as conn:
        while not await conn.scalar(waiting):  # noqa: ASYNC110 (the server's state, no event)
            await asyncio.sleep(0.01)


async def _later(engine: AsyncEngine, clock: Clock, by: timedelta) -> None:
    """`by` passes for the claims: the replicas' clock moves on (SQLite's claims read it) and,
    on PostgreSQL, whose own clock times claims, every claim's expiry moves back as much."""
    clock.at += by
    if engine.dialect.name == "postgresql":
        async with engine.begin() as conn:
            await conn.execute(
                text("UPDATE agent_claims SET expires_at = expires_at - CAST(:by AS interval)"),
                {"by": by},
            )


async def _now(engine: AsyncEngine, clock: Clock) -> datetime:
    """Now by the clock that times claims: the database server's on PostgreSQL."""
    if engine.dialect.name != "postgresql":
        return clock()
    async with engine.connect() as conn:
        now: datetime = await conn.scalar(text("SELECT clock_timestamp()"))
        return now


async def _claims(engine: AsyncEngine) -> list[tuple[str, ...]]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT log, user_id, idempotency_key, holder FROM agent_claims "
                "ORDER BY log, user_id, idempotency_key"
            )
        )
        return [tuple(row) for row in rows]


# --- two task runners sharing one database -------------------------------------------------


class Gate:
    """A model that waits until the test opens it, counting calls; `fail` raises instead."""

    def __init__(self, answer: str, fail: bool = False) -> None:
        self.answer, self.fail, self.calls = answer, fail, 0
        self.asked, self.open = asyncio.Event(), asyncio.Event()

    def agent_model(self, profile: Profile) -> str:
        return "scripted"

    async def perform(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        self.calls += 1
        self.asked.set()
        await self.open.wait()
        if self.fail:
            raise ModelFailed("the endpoint answered 500")
        return TaskAnswer(output=self.answer, usage=TokenUsage(input_tokens=1, output_tokens=1))


def _runner(engine: AsyncEngine, holder: str, model: Gate) -> TaskRunner:
    return TaskRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        models=model,
        results=sql_logs.SqlTaskLog(engine, lambda: datetime.now(UTC), holder),
        prices={"default": ModelPrice(input_usd_per_1k=0.0, output_usd_per_1k=0.0)},
    )


async def test_a_step_sent_again_to_another_replica_waits_for_the_first_call(
    engine: AsyncEngine,
) -> None:
    # The workflow service restarted mid-call and sent the step again; another replica got it.
    first, second = Gate("a's answer"), Gate("b's answer")
    a, b = _runner(engine, "a", first), _runner(engine, "b", second)
    running = asyncio.create_task(a.run(research_step(timeout=30.0)))
    await first.asked.wait()
    waiting = asyncio.create_task(b.run(research_step(timeout=30.0)))
    await asyncio.sleep(0.2)  # b has looked several times by now
    assert not waiting.done()
    first.open.set()
    answered, waited = await running, await waiting
    assert (first.calls, second.calls) == (1, 0)
    assert answered.output == waited.output == "a's answer"
    assert not answered.replayed and waited.replayed


async def test_when_the_first_call_fails_the_waiting_replica_calls_the_model(
    engine: AsyncEngine,
) -> None:
    first, second = Gate("never", fail=True), Gate("b's answer")
    second.open.set()
    a, b = _runner(engine, "a", first), _runner(engine, "b", second)
    running = asyncio.create_task(a.run(research_step(timeout=30.0)))
    await first.asked.wait()
    waiting = asyncio.create_task(b.run(research_step(timeout=30.0)))
    await asyncio.sleep(0.1)
    first.open.set()
    with pytest.raises(RemoteError) as caught:
        await running
    assert caught.value.code == ErrorCode.INTERNAL
    assert (await waiting).output == "b's answer"  # not a replay: a recorded nothing
    assert (first.calls, second.calls) == (1, 1)


async def test_a_replica_waits_no_longer_than_its_step_may_take(engine: AsyncEngine) -> None:
    first, second = Gate("a's answer"), Gate("b's answer")
    a, b = _runner(engine, "a", first), _runner(engine, "b", second)
    running = asyncio.create_task(a.run(research_step(timeout=30.0)))
    await first.asked.wait()
    with pytest.raises(RemoteError) as caught:
        await b.run(research_step(timeout=0.3))
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "another agent-runner replica is still answering 'r-1:research:1'" in str(caught.value)
    assert second.calls == 0
    first.open.set()
    assert (await running).output == "a's answer"


async def test_a_cancelled_call_gives_its_claim_up(engine: AsyncEngine) -> None:
    first, second = Gate("never"), Gate("b's answer")
    second.open.set()
    a, b = _runner(engine, "a", first), _runner(engine, "b", second)
    running = asyncio.create_task(a.run(research_step(timeout=30.0)))
    await first.asked.wait()
    running.cancel()  # a shutdown of replica a
    with pytest.raises(asyncio.CancelledError):
        await running
    assert await _claims(engine) == []
    assert (await b.run(research_step(timeout=30.0))).output == "b's answer"


async def test_a_step_the_workflow_gives_up_is_not_called_by_the_replica_waiting_for_it(
    engine: AsyncEngine,
) -> None:
    # The cancel notice is broadcast: the replica calling the model stops, and the one waiting
    # for that call stops waiting instead of taking the key over and calling the model.
    first, second = Gate("never"), Gate("b's answer")
    second.open.set()
    a, b = _runner(engine, "a", first), _runner(engine, "b", second)
    running = asyncio.create_task(a.run(research_step(timeout=30.0)))
    await first.asked.wait()
    waiting = asyncio.create_task(b.run(research_step(timeout=30.0)))
    await asyncio.sleep(0.1)  # b is waiting for a's call
    notice = CancelTask(user_id="alice", idempotency_key="r-1:research:1", reason="run timeout")
    await b.cancel(notice)
    await a.cancel(notice)
    for call in (running, waiting):
        with pytest.raises(RemoteError) as caught:
            await call
        assert caught.value.code == ErrorCode.UNAVAILABLE
        assert "the workflow cancelled step 'research': run timeout" in caught.value.body.message
    assert (first.calls, second.calls) == (1, 0)
    assert await _claims(engine) == []


async def test_two_services_built_on_one_database_are_two_claim_holders(
    nats_url: str, database_url: str, tmp_path: Path
) -> None:
    # What each replica's claims are made under comes from `build`: two processes must never
    # share a holder, or both would take one key as their own and both call the model.
    first, second = Gate("a's answer"), Gate("b's answer")
    config = settings(nats_url, database_url, memory_backend="sql", qdrant_path=tmp_path / "q")
    a, b = build(config, task_agents=first), build(config, task_agents=second)
    try:
        await migrate(a.engine, sql.COMPONENT, sql.STEPS)
        running = asyncio.create_task(a.tasks.run(research_step(timeout=30.0)))
        await first.asked.wait()
        waiting = asyncio.create_task(b.tasks.run(research_step(timeout=30.0)))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        first.open.set()
        assert (await running).output == (await waiting).output == "a's answer"
        assert (first.calls, second.calls) == (1, 0)
    finally:
        for app in (a, b):
            await app.engine.dispose()
