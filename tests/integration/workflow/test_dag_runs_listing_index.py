"""Listing all an owner's DAG runs, newest first, reads them from an index in that order.

Without one, every `GET /workflow-runs` (no `?workflow=`) read all the runs the owner ever
started and sorted them, to return the newest 50: slower with each run. A plan with a sort is
the symptom, whatever the table's size, so the plan is what these tests look at.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, inspect, text

from baton_eventstore import SqlEventStore, migrate
from baton_workflow.adapters import dag_tables
from baton_workflow.adapters.dag_runs import SqlDagRuns

from .conftest import migrated_store

T0 = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlEventStore]:
    async with migrated_store(database_url, dag_tables.COMPONENT, dag_tables.STEPS) as store:
        yield store


def _run(n: int) -> dict[str, Any]:
    return {
        "run_id": f"r{n}",
        "owner": "busy" if n % 2 else f"u{n % 50}",
        "workflow": f"wf{n % 10}",
        "version": 1,
        "mode": "live",
        "status": "completed",
        "request_id": None,
        "started_at": T0 + timedelta(seconds=n),
        "finished_at": T0 + timedelta(seconds=n + 1),
        "cost_usd": 0.0,
        "error": None,
        "stream_version": 3,
        "variables": {"topic": "an ordinary value"},
    }


async def _listing_plan(store: SqlEventStore, workflow: str | None) -> str:
    """The plan of the statement `SqlDagRuns.listed` runs, as the database would run it."""
    sent: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, params: Any, *args: Any) -> None:
        sent.append((statement, params))

    event.listen(store.engine.sync_engine, "before_cursor_execute", capture)
    try:
        rows = await SqlDagRuns(store).listed("busy", workflow, 50)
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", capture)
    newest = [_run(n) for n in range(1999, -1, -1)]
    newest = [r for r in newest if r["owner"] == "busy" and workflow in (None, r["workflow"])]
    assert [row["run_id"] for row in rows] == [r["run_id"] for r in newest[:50]]
    [(statement, params)] = sent
    postgres = store.engine.dialect.name == "postgresql"
    async with store.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        driver: Any = raw.driver_connection
        if postgres:
            return "\n".join(r[0] for r in await driver.fetch(f"EXPLAIN {statement}", *params))
        found = await driver.execute_fetchall(f"EXPLAIN QUERY PLAN {statement}", params)
        return "\n".join(str(r[-1]) for r in found)


async def _add_runs(store: SqlEventStore) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(dag_tables.dag_runs.insert(), [_run(n) for n in range(2000)])
        if store.engine.dialect.name == "postgresql":
            await conn.execute(text("ANALYZE dag_runs"))
        else:
            await conn.execute(text("ANALYZE"))


async def test_all_the_owners_runs_are_listed_without_a_sort(store: SqlEventStore) -> None:
    await _add_runs(store)
    plan = await _listing_plan(store, None)
    assert "ix_dag_runs_owner_started" in plan, plan
    assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan


LATER = ("ix_dag_runs_owner_started", "ix_dag_runs_running")
"""The indexes later migration steps add to the first schema's table."""


async def test_a_database_of_the_first_schema_gains_the_indexes(database_url: str) -> None:
    store = await SqlEventStore.from_url(database_url)
    try:
        assert await migrate(store.engine, dag_tables.COMPONENT, dag_tables.STEPS[:1]) == 1
        async with store.engine.begin() as conn:  # the table as the first schema made it
            for name in LATER:
                await conn.execute(text(f"DROP INDEX {name}"))
        assert not set(LATER) & await _indexes(store)
        await migrate(store.engine, dag_tables.COMPONENT, dag_tables.STEPS)
        assert set(LATER) <= await _indexes(store)
    finally:
        await store.close()


async def test_the_running_runs_of_an_owner_are_counted_from_their_index(
    store: SqlEventStore,
) -> None:
    await _add_runs(store)  # 2,000 completed runs, half of them the owner's
    running = [{**_run(n), "run_id": f"live{n}", "status": "running"} for n in range(5)]
    async with store.engine.begin() as conn:
        await conn.execute(dag_tables.dag_runs.insert(), running)
    runs = SqlDagRuns(store)
    assert await runs.running_count("busy") == 2  # live1, live3 (odd n: busy)
    assert await runs.running_count("u0") == 1 and await runs.running_count("nobody") == 0


@pytest.mark.postgres
async def test_the_running_count_reads_its_index_in_a_prepared_statements_generic_plan(
    postgres_url: str,
) -> None:
    # A prepared statement (asyncpg prepares each) turns to a generic plan after a few runs,
    # and a generic plan may use a partial index only if the statement names its predicate:
    # with `status = $2` the count read all the owner's runs, however many it ever started.
    store = await SqlEventStore.from_url(postgres_url)
    try:
        await migrate(store.engine, dag_tables.COMPONENT, dag_tables.STEPS)
        # Many runs running, of many owners; the owner's own are a few of its many.
        running = [
            {**_run(n), "run_id": f"live{n}", "owner": f"o{n % 100}", "status": "running"}
            for n in range(1000)
        ]
        async with store.engine.begin() as conn:
            await conn.execute(dag_tables.dag_runs.insert(), running)
        await _add_runs(store)  # 2,000 ended runs, half of them the owner's; analysed
        sent: list[tuple[str, Any]] = []

        def capture(conn: Any, cursor: Any, statement: str, params: Any, *args: Any) -> None:
            sent.append((statement, params))

        event.listen(store.engine.sync_engine, "before_cursor_execute", capture)
        try:
            assert await SqlDagRuns(store).running_count("busy") == 0
        finally:
            event.remove(store.engine.sync_engine, "before_cursor_execute", capture)
        [(statement, params)] = sent
        async with store.engine.connect() as conn:
            driver: Any = (await conn.get_raw_connection()).driver_connection
            await driver.execute("SET plan_cache_mode = force_generic_plan")
            await driver.execute(f"PREPARE running_count AS {statement}")
            literals = ", ".join(f"'{value}'" for value in params)  # the test's own values
            plan = "\n".join(
                r[0] for r in await driver.fetch(f"EXPLAIN EXECUTE running_count({literals})")
            )
            await driver.execute("DEALLOCATE running_count")
            await driver.execute("RESET plan_cache_mode")
    finally:
        await store.close()
    assert "ix_dag_runs_running" in plan, plan


async def _indexes(store: SqlEventStore) -> set[str]:
    async with store.engine.connect() as conn:
        found = await conn.run_sync(lambda sync: inspect(sync).get_indexes("dag_runs"))
    return {str(index["name"]) for index in found}


async def test_a_page_after_a_run_lists_the_runs_started_before_it(store: SqlEventStore) -> None:
    """What `GET /workflow-runs?after=` reads: the owner's runs before the one named, and the
    runs of one instant (a page never ends between two of them)."""
    await _add_runs(store)
    runs = SqlDagRuns(store)
    start = await runs.started_at("busy", "r1999")
    assert start == T0 + timedelta(seconds=1999)
    assert await runs.started_at("u0", "r1999") is None  # another owner's run
    before = await runs.listed("busy", None, 3, before=start)
    assert [r["run_id"] for r in before] == ["r1997", "r1995", "r1993"]
    of_wf = await runs.listed("busy", "wf7", 2, before=start)
    assert [r["run_id"] for r in of_wf] == ["r1997", "r1987"]
    instant = await runs.listed("busy", None, None, at=T0 + timedelta(seconds=1997))
    assert [r["run_id"] for r in instant] == ["r1997"]
