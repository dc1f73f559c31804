"""The active list's pages as each store reads them: oldest first, instances started in the
same instant by id, completed ones left out, and no context read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from baton_eventstore import SqlEventStore
from baton_workflow.adapters import read_model
from baton_workflow.adapters.instances import SqlInstanceRepository

from .conftest import migrated_store

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlEventStore]:
    async with migrated_store(database_url, read_model.COMPONENT, read_model.STEPS) as store:
        yield store


async def put(store: SqlEventStore, instance_id: str, user: str, status: str, at: datetime) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(
            read_model.workflow_instances.insert().values(
                instance_id=instance_id,
                user_id=user,
                workflow_id=f"w-{instance_id}",
                status=status,
                current_step="greeting",
                progress=0.0,
                messages_in_step=0,
                context={"shared": {"big": "x" * 1000}},
                version=1,
                created_at=at,
                updated_at=at,
            )
        )


async def test_pages_follow_the_start_order_then_the_id(store: SqlEventStore) -> None:
    await put(store, "c", "u", "active", T0)
    await put(store, "a", "u", "active", T0 + timedelta(seconds=1))
    await put(store, "b", "u", "active", T0 + timedelta(seconds=1))
    await put(store, "d", "u", "completed", T0 + timedelta(seconds=2))
    await put(store, "e", "someone", "active", T0 + timedelta(seconds=3))
    await put(store, "f", "u", "active", T0 + timedelta(seconds=4))
    repo = SqlInstanceRepository(store)
    assert [s.instance_id for s in await repo.list_active("u")] == ["c", "a", "b", "f"]
    a = await repo.get_summary("a")
    assert a is not None and a.created_at == T0 + timedelta(seconds=1)
    assert [s.instance_id for s in await repo.list_active("u", a, limit=1)] == ["b"]
    # A completed one still marks its place: the page after it goes on from there.
    d = await repo.get_summary("d")
    assert [s.instance_id for s in await repo.list_active("u", d)] == ["f"]
    assert await repo.get_summary("nope") is None
