"""The reply and task logs forget records older than the retention, in bounded batches, on
SQLite and PostgreSQL; the running agent-runner prunes them periodically and survives a store
that fails."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import event, inspect, text
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import first_recorded, sql, sql_logs
from baton_agent_runner.bootstrap import build
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import Claim, StoreUnavailable
from baton_contracts.agent_api import TaskResult, TokenUsage
from baton_eventstore import create_engine, migrate

from ...sqlite_engines import impatient_sqlite_engine
from .conftest import Clock, settings, stay_reply

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
RETENTION = timedelta(days=7)
CUTOFF = T0 - RETENTION
CUTOFF_ISO = "2026-11-18T12:00:00+00:00"
OLD = CUTOFF - timedelta(days=1)
RECENT = T0 - timedelta(hours=1)
CALL = TaskCall(agent="default", run_id="r", step_id="s", prompt="p")


def _result(text: str) -> TaskResult:
    return TaskResult(output=text, usage=TokenUsage(), agent="default", model="scripted")


async def test_old_records_go_and_recent_ones_stay_whoever_they_belong_to(
    engine: AsyncEngine,
) -> None:
    clock = Clock(OLD)
    replies, tasks = sql_logs.SqlReplyLog(engine, clock), sql_logs.SqlTaskLog(engine, clock)
    await replies.put("alice", "old", stay_reply("alice old"))
    await replies.put("bob", "old", stay_reply("bob old"))
    await tasks.put("alice", "old", CALL, _result("alice old"))
    clock.at = CUTOFF  # exactly as old as the retention: kept
    await replies.put("alice", "edge", stay_reply("alice edge"))
    clock.at = RECENT
    await replies.put("alice", "new", stay_reply("alice new"))
    await replies.put("bob", "new", stay_reply("bob new"))
    await tasks.put("bob", "new", CALL, _result("bob new"))

    assert await replies.prune(CUTOFF) == 2
    assert await tasks.prune(CUTOFF) == 1

    assert await replies.get("alice", "old") is None
    assert await replies.get("bob", "old") is None
    assert await tasks.get("alice", "old") is None
    assert await replies.get("alice", "edge") == stay_reply("alice edge")
    assert await replies.get("alice", "new") == stay_reply("alice new")
    assert await replies.get("bob", "new") == stay_reply("bob new")
    assert await tasks.get("bob", "new") == _result("bob new")
    assert await replies.prune(CUTOFF) == 0
    assert await tasks.prune(CUTOFF) == 0


async def test_a_pruned_key_is_recorded_anew(engine: AsyncEngine) -> None:
    clock = Clock(OLD)
    replies, tasks = sql_logs.SqlReplyLog(engine, clock), sql_logs.SqlTaskLog(engine, clock)
    await replies.put("alice", "k", stay_reply("first"))
    await tasks.put("alice", "k", CALL, _result("first"))
    assert await replies.prune(CUTOFF) == 1
    assert await tasks.prune(CUTOFF) == 1
    clock.at = T0
    # Not the first value, and not replayed: the key is free again.
    assert await replies.put("alice", "k", stay_reply("again")) == stay_reply("again")
    assert await tasks.put("alice", "k", CALL, _result("again")) == _result("again")
    assert await replies.get("alice", "k") == stay_reply("again")
    assert await tasks.get("alice", "k") == _result("again")
    assert await replies.prune(CUTOFF) == 0  # recorded at T0, so recent


async def test_a_backlog_larger_than_a_batch_goes_in_several_statements(
    engine: AsyncEngine,
) -> None:
    clock = Clock(OLD)
    replies = sql_logs.SqlReplyLog(engine, clock)
    for n in range(11):
        await replies.put(f"u{n}", "k", stay_reply(f"old {n}"))
    clock.at = RECENT
    await replies.put("u0", "new", stay_reply("new"))
    deleted: list[int] = []

    def _count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("DELETE FROM AGENT_REPLIES"):  # not claims
            deleted.append(cursor.rowcount)

    # SQLite's statements are SQLAlchemy's to see; PostgreSQL's go to asyncpg directly.
    event.listen(engine.sync_engine, "after_cursor_execute", _count)
    try:
        assert await replies.prune(CUTOFF, batch=3) == 11
    finally:
        event.remove(engine.sync_engine, "after_cursor_execute", _count)
    if engine.dialect.name == "sqlite":
        assert deleted == [3, 3, 3, 2]
    for n in range(11):
        assert await replies.get(f"u{n}", "k") is None
    assert await replies.get("u0", "new") == stay_reply("new")


async def test_two_replicas_pruning_at_once_delete_each_old_row_once(
    database_url: str, engine: AsyncEngine
) -> None:
    clock = Clock(OLD)
    tasks = sql_logs.SqlTaskLog(engine, clock)
    for n in range(60):
        await tasks.put(f"u{n % 7}", f"k{n}", CALL, _result(f"old {n}"))
    other = create_engine(database_url)  # another replica: its own pool and write lock
    try:
        mine, theirs = await asyncio.gather(
            tasks.prune(CUTOFF, batch=4), sql_logs.SqlTaskLog(other, clock).prune(CUTOFF, batch=4)
        )
    finally:
        await other.dispose()
    assert mine + theirs == 60
    assert await tasks.prune(CUTOFF) == 0


async def test_on_sqlite_a_prune_queues_with_the_processes_other_writers(
    tmp_path: Path,
) -> None:
    # With the busy timeout at zero, a prune that did not take the process's write lock
    # would fail the writes it meets (or they it) with "database is locked".
    engine = impatient_sqlite_engine(tmp_path / "agent.db")
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    clock = Clock(OLD)
    replies, tasks = sql_logs.SqlReplyLog(engine, clock), sql_logs.SqlTaskLog(engine, clock)
    try:
        for n in range(40):
            await replies.put(f"u{n}", "old", stay_reply(f"old {n}"))
            await tasks.put(f"u{n}", "old", CALL, _result(f"old {n}"))
        clock.at = T0
        writes: list[Any] = [replies.put(f"u{n}", "new", stay_reply(f"new {n}")) for n in range(20)]
        writes += [tasks.put(f"u{n}", "new", CALL, _result(f"new {n}")) for n in range(20)]
        removed = await asyncio.gather(
            replies.prune(CUTOFF, batch=5), tasks.prune(CUTOFF, batch=5), *writes
        )
        assert removed[:2] == [40, 40]
        for n in range(20):
            assert await replies.get(f"u{n}", "new") == stay_reply(f"new {n}")
            assert await tasks.get(f"u{n}", "new") == _result(f"new {n}")
    finally:
        await engine.dispose()


async def test_a_database_of_the_third_schema_gains_the_created_at_indexes(
    database_url: str,
) -> None:
    engine = create_engine(database_url)
    try:
        assert await migrate(engine, sql.COMPONENT, sql.STEPS[:3]) == 3
        async with engine.begin() as conn:  # the tables as the third schema made them
            for index in ("ix_agent_replies_created_at", "ix_agent_task_results_created_at"):
                await conn.execute(text(f"DROP INDEX {index}"))
        assert await _created_at_indexes(engine) == set()
        assert await migrate(engine, sql.COMPONENT, sql.STEPS) == len(sql.STEPS)
        assert await _created_at_indexes(engine) == {
            ("agent_replies", "ix_agent_replies_created_at"),
            ("agent_task_results", "ix_agent_task_results_created_at"),
        }
    finally:
        await engine.dispose()


async def _created_at_indexes(engine: AsyncEngine) -> set[tuple[str, str]]:
    def read(conn: Any) -> set[tuple[str, str]]:
        found = inspect(conn)
        return {
            (table, index["name"])
            for table in ("agent_replies", "agent_task_results")
            for index in found.get_indexes(table)
            if index["column_names"] == ["created_at"]
        }

    async with engine.connect() as conn:
        return await conn.run_sync(read)


# --- the running service ------------------------------------------------------------------


class FailingTaskLog:
    """A task log whose prune fails: the database is down, then a bug, then it works."""

    def __init__(self) -> None:
        self.failures: list[Exception] = [
            StoreUnavailable("task log: OperationalError: unable to open database file\nmore"),
            RuntimeError("a bug in the prune"),
        ]
        self.prunes: list[datetime] = []

    async def get(self, user_id: str, key: str, digest: str | None = None) -> TaskResult | None:
        return None

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[TaskResult]:
        return Claim(mine=True)

    async def release(self, user_id: str, key: str) -> None:
        pass

    async def put(
        self, user_id: str, key: str, call: TaskCall, result: TaskResult, digest: str | None = None
    ) -> TaskResult:
        return result

    async def prune(self, older_than: datetime) -> int:
        self.prunes.append(older_than)
        if self.failures:
            raise self.failures.pop(0)
        return 0


async def _eventually(check: Any, within: float = 10.0) -> None:
    """Wait until `check()` holds, looking again every 20 ms (the prunes run in the background,
    with nothing to wait on)."""
    async with asyncio.timeout(within):
        while not await check():  # noqa: ASYNC110
            await asyncio.sleep(0.02)


async def test_the_service_prunes_periodically_and_survives_a_failing_store(
    nats_url: str, sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(OLD)
    engine = create_engine(sqlite_url)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    replies = sql_logs.SqlReplyLog(engine, clock)
    await replies.put("alice", "old", stay_reply("old"))
    clock.at = RECENT
    await replies.put("alice", "new", stay_reply("new"))
    tasks = FailingTaskLog()
    config = settings(nats_url, sqlite_url, memory_backend="sql", idempotency_retention_hours=168)
    app = build(config, now=lambda: T0, task_results=tasks, prune_every=0.05)
    caplog.set_level(logging.INFO, logger="baton.agent_runner")
    await app.start()
    try:
        # The first prune, right after the start, deletes the old reply.
        await _eventually(lambda: _gone(replies, "alice", "old"))
        # A reply recorded long ago after that goes at a later prune: it runs periodically,
        # and goes on after the task log's prune failed twice.
        clock.at = OLD
        await replies.put("bob", "old", stay_reply("old"))
        await _eventually(lambda: _gone(replies, "bob", "old"))
        await _eventually(lambda: _at_least(tasks.prunes, 3))
        assert set(tasks.prunes) == {CUTOFF}
        assert await replies.get("alice", "new") == stay_reply("new")
    finally:
        await app.stop()
        await engine.dispose()
    assert app.pruner._task is None
    prunes = len(tasks.prunes)
    await asyncio.sleep(0.15)
    assert len(tasks.prunes) == prunes  # stopped: no prune after `stop`
    deleted = [r for r in caplog.records if r.getMessage().startswith("deleted")]
    assert {(r.levelname, r.getMessage()) for r in deleted} == {
        (
            "INFO",
            f"deleted idempotency records older than 168 h (recorded before {CUTOFF_ISO}): "
            "replies 1",
        )
    }
    outage = [r for r in caplog.records if "the database is unavailable" in r.getMessage()]
    assert len(outage) == 1 and outage[0].levelname == "WARNING"
    assert "\n" not in outage[0].getMessage() and outage[0].exc_info is None
    bug = [r for r in caplog.records if "could not delete task results" in r.getMessage()]
    assert len(bug) == 1 and bug[0].levelname == "ERROR" and bug[0].exc_info is not None


async def _gone(log: sql_logs.SqlReplyLog, user_id: str, key: str) -> bool:
    return await log.get(user_id, key) is None


async def _at_least(seen: list[datetime], n: int) -> bool:
    return len(seen) >= n


async def test_a_postgres_prune_batch_with_no_answer_is_an_outage(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server that accepts connections and never answers: the batch is cut off and the
    # pruner sees an outage (one warning, next round), instead of waiting until TCP gives up.
    async def no_answer(*_: Any) -> Any:
        await asyncio.sleep(3600)

    monkeypatch.setattr(first_recorded.raw_postgres, "is_postgres", lambda _: True)
    monkeypatch.setattr(first_recorded.raw_postgres, "fetchval_within", no_answer)
    monkeypatch.setattr(first_recorded, "PRUNE_BATCH_SECONDS", 0.05)
    engine = create_engine(sqlite_url)
    try:
        replies = sql_logs.SqlReplyLog(engine, Clock(T0))
        with pytest.raises(StoreUnavailable, match="had no answer within 0.05s"):
            await asyncio.wait_for(replies.prune(CUTOFF), 5)
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_a_prune_batch_may_take_longer_than_the_store_timeout(postgres_url: str) -> None:
    # Every session's statements end at the store timeout (BATON_STORE_TIMEOUT_SECONDS); a
    # prune's batch has its own limit, or one slower than a turn's writes failed every time.
    engine = create_engine(postgres_url, statement_timeout=0.3)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    clock = Clock(OLD)
    replies = sql_logs.SqlReplyLog(engine, clock)
    await replies.put("alice", "old", stay_reply("alice old"))
    other = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await other.execute("BEGIN")
        await other.execute("LOCK TABLE agent_replies IN ACCESS EXCLUSIVE MODE")
        release = asyncio.get_running_loop().call_later(
            1.5, lambda: asyncio.ensure_future(other.execute("ROLLBACK"))
        )
        assert await replies.prune(CUTOFF) == 1  # waited past 0.3 s for the lock
        release.cancel()
    finally:
        await other.close()
        await engine.dispose()
