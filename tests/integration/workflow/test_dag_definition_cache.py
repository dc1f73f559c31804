"""The DAG definitions cache: a run start reads only the versions saved since the last load,
and versions that another replica saved are still seen."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from baton_eventstore import ConcurrencyConflict, SqlEventStore, create_engine, migrate
from baton_workflow.adapters import dag_tables
from baton_workflow.adapters.dag_definitions import SqlDagDefinitions
from baton_workflow.domain import dag_versions as dv

T0 = datetime(2026, 11, 24, 8, 0, tzinfo=UTC)


def document(n: int) -> dict[str, Any]:
    return {"name": "wf", "steps": [{"id": "a", "prompt": f"version {n}"}]}


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlEventStore]:
    store = SqlEventStore(create_engine(f"sqlite+aiosqlite:///{tmp_path / 'defs.db'}"))
    await store.migrate()
    await migrate(store.engine, dag_tables.COMPONENT, dag_tables.STEPS)
    yield store
    await store.engine.dispose()


def count_loaded(store: SqlEventStore) -> list[tuple[int, int]]:
    """(after_version, events read) of every load of the store."""
    seen: list[tuple[int, int]] = []
    original = store.load

    async def load(stream_id: str, after_version: int = 0) -> Any:
        records = await original(stream_id, after_version)
        seen.append((after_version, len(records)))
        return records

    store.load = load  # type: ignore[method-assign]
    return seen


async def save(defs: SqlDagDefinitions, n: int) -> dv.History:
    before = await defs.history("ann", "wf")
    return await defs.append("ann", before, dv.save(before, document(n), T0 + timedelta(n)))


async def test_a_load_reads_only_what_was_saved_since_the_last_one(
    store: SqlEventStore,
) -> None:
    defs = SqlDagDefinitions(store)
    for n in range(1, 6):
        await save(defs, n)
    loads = count_loaded(store)
    history = await defs.history("ann", "wf")
    assert history.latest is not None and history.latest.document == document(5)
    assert [v.version for v in history.versions] == [1, 2, 3, 4, 5]
    assert loads == [(5, 0)]  # five versions cached: none read again


async def test_versions_saved_by_another_replica_are_seen_and_only_they_are_read(
    store: SqlEventStore,
) -> None:
    ours, theirs = SqlDagDefinitions(store), SqlDagDefinitions(store)
    for n in range(1, 4):
        await save(ours, n)
    await save(theirs, 4)
    deleted = await theirs.history("ann", "wf")
    await theirs.append("ann", deleted, dv.delete(deleted, T0 + timedelta(days=9)))
    loads = count_loaded(store)
    history = await ours.history("ann", "wf")
    assert loads == [(3, 2)]  # the save and the deletion, nothing before them
    assert [v.version for v in history.versions] == [1, 2, 3, 4] and history.deleted
    assert history == await SqlDagDefinitions(store).history("ann", "wf")  # a full read's


async def test_a_stale_cache_still_refuses_an_append_on_an_old_version(
    store: SqlEventStore,
) -> None:
    ours, theirs = SqlDagDefinitions(store), SqlDagDefinitions(store)
    stale = await save(ours, 1)
    await save(theirs, 2)
    with pytest.raises(ConcurrencyConflict):
        await ours.append("ann", stale, dv.save(stale, document(3), T0))
    fresh = await ours.history("ann", "wf")
    assert fresh.latest is not None and fresh.latest.document == document(2)


async def test_the_cache_keeps_at_most_cache_size_workflows(store: SqlEventStore) -> None:
    defs = SqlDagDefinitions(store, cache_size=2)
    for owner in ("ann", "bob", "cy"):
        before = await defs.history(owner, "wf")
        await defs.append(owner, before, dv.save(before, document(1), T0))
    loads = count_loaded(store)
    await defs.history("ann", "wf")  # pushed out by cy: read whole again
    await defs.history("cy", "wf")
    assert loads == [(0, 1), (1, 0)]
