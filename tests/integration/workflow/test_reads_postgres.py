"""Reads of one statement on PostgreSQL run without BEGIN and ROLLBACK around them."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from baton_eventstore import NewEvent, SqlEventStore, migrate
from baton_workflow.adapters import dag_tables, read_model
from baton_workflow.adapters.dag_definitions import SqlDagDefinitions
from baton_workflow.adapters.dag_runs import SqlDagRuns
from baton_workflow.adapters.instances import SqlInstanceRepository

from ...postgres_sessions import fail_first

pytestmark = pytest.mark.postgres


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(postgres_url, pool_size=2)
    await migrate(store.engine, read_model.COMPONENT, read_model.STEPS)
    await migrate(store.engine, dag_tables.COMPONENT, dag_tables.STEPS)
    yield store
    await store.close()


@pytest.fixture
def transactions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every transaction asyncpg is asked to open from now on (what SQLAlchemy's BEGIN is)."""
    opened: list[str] = []
    real = asyncpg.Connection.transaction

    def counting(self: asyncpg.Connection, **kwargs: Any) -> Any:
        opened.append(str(kwargs.get("isolation")))
        return real(self, **kwargs)

    monkeypatch.setattr(asyncpg.Connection, "transaction", counting)
    return opened


async def test_loads_and_read_model_reads_open_no_transaction(
    store: SqlEventStore, transactions: list[str]
) -> None:
    await store.append("s", 0, [NewEvent(uuid.uuid4(), "t.happened", {"n": 1})])
    assert transactions == []  # appends go through the raw asyncpg pool: one statement

    assert [e.version for e in await store.load("s")] == [1]
    assert len(await store.read_all()) == 1
    assert await store.stream_version("s") == 1
    instances = SqlInstanceRepository(store)
    assert await instances.find_active("u", "onboarding") is None
    assert await instances.list_active("u") == []
    assert await instances.get_view("nope") is None
    runs = SqlDagRuns(store)
    assert await runs.find_request("u", "r") is None
    assert await runs.listed("u", None, 10) == []
    assert await runs.owner_of("nope") is None
    assert await runs.running() == []
    assert await runs.log_version("nope") == 0
    assert await SqlDagDefinitions(store).listed("u") == []
    assert transactions == []


async def test_a_transaction_of_the_store_still_opens_one(
    store: SqlEventStore, transactions: list[str]
) -> None:
    async with store.transaction() as tx:
        await tx.append("s", 0, [NewEvent(uuid.uuid4(), "t.happened", {"n": 1})])
    assert len(transactions) == 1  # the fixture sees what it should, where it should


async def test_the_active_instance_reads_as_sqlalchemy_reads_it(store: SqlEventStore) -> None:
    """`find_active` skips SQLAlchemy on PostgreSQL; what it answers is the read row as
    `get_view` (through SQLAlchemy) gives it, JSON context and zoned timestamps included."""
    at = datetime(2026, 11, 28, 19, 0, 1, 123456, tzinfo=UTC)
    row = {
        "user_id": "u", "workflow_id": "onboarding", "current_step": "discovery",
        "progress": 0.25, "messages_in_step": 3, "version": 4, "created_at": at,
        "updated_at": at + timedelta(seconds=5),
        "context": {"shared": {"name": "Анна", "n": [1, 2.5, None]}, "step_data": {}},
    }  # fmt: skip
    async with store.engine.begin() as conn:
        await conn.execute(
            read_model.workflow_instances.insert(),
            [
                {**row, "instance_id": "done", "status": "completed"},
                {**row, "instance_id": "live", "status": "active"},
                {**row, "instance_id": "other", "status": "active", "workflow_id": "chat"},
            ],
        )
    instances = SqlInstanceRepository(store)

    found = await instances.find_active("u", "onboarding")

    assert found is not None
    assert found == await instances.get_view("live")
    assert found.context["shared"] == {"name": "Анна", "n": [1, 2.5, None]}
    assert found.created_at == at and found.created_at.tzinfo is not None
    assert await instances.find_active("u", "nothing") is None
    assert await instances.find_active("someone else", "onboarding") is None


async def test_the_active_instance_read_cut_off_by_a_restart_runs_again(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every start asks for the user's active instance on the append pool: cut off mid-statement
    by a PostgreSQL restart, that read failed the start with a 503; a read runs again."""
    cut = asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")
    calls = fail_first(monkeypatch, "fetch", cut, marker="status = 'active'")
    assert await SqlInstanceRepository(store).find_active("u", "onboarding") is None
    assert len([query for query in calls if "status = 'active'" in query]) == 2
