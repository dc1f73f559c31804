"""What `GET /workflows?after=` reads, on each backend: the owner's listed workflows whose
names sort after the one given, in the order the list reads them (PostgreSQL compares by its
collation, where `a-b` and `a_b` may sort otherwise than by code point: the pages still follow
the list's own order, each name once)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from baton_eventstore import SqlEventStore
from baton_workflow.adapters import dag_tables
from baton_workflow.adapters.dag_definitions import SqlDagDefinitions
from baton_workflow.domain import dag_versions as dv

from .conftest import migrated_store

T0 = datetime(2025, 1, 1, tzinfo=UTC)
NAMES = ["b", "B", "a-b", "a_b", "a", "Z9", "9", "ab", "gone"]


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlEventStore]:
    async with migrated_store(database_url, dag_tables.COMPONENT, dag_tables.STEPS) as store:
        yield store


async def test_pages_after_a_name_list_every_workflow_once(store: SqlEventStore) -> None:
    definitions = SqlDagDefinitions(store)
    for owner in ("ann", "bob"):
        for name in NAMES:
            history = await definitions.history(owner, name)
            document = {"name": name, "steps": []}
            await definitions.append(owner, history, dv.save(history, document, T0))
    gone = await definitions.history("ann", "gone")
    await definitions.append("ann", gone, dv.delete(gone, T0))
    whole = [row["name"] for row in await definitions.listed("ann")]
    assert sorted(whole) == sorted(set(NAMES) - {"gone"})
    paged: list[str] = []
    after = None
    while True:
        page = [row["name"] for row in await definitions.listed("ann", after=after, limit=2)]
        paged += page
        if len(page) < 2:
            break
        after = page[-1]
    assert paged == whole
