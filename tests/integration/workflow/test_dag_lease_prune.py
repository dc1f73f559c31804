"""The DAG runs' lease prune clears a backlog longer than one statement's limit in one call."""

from __future__ import annotations

from baton_eventstore import SqlEventStore
from baton_workflow.adapters.dag_runs import SqlDagRuns


async def test_a_backlog_longer_than_one_statement_is_cleared_in_one_call(
    sqlite_url: str,
) -> None:
    store = await SqlEventStore.from_url(sqlite_url)
    try:
        for n in range(5):  # finished runs whose leases ran out a minute ago
            assert await store.outbox.acquire_lease(f"dagrun:r{n}", "gone", -60)
        assert await store.outbox.acquire_lease("dagrun:live", "me", 60)
        runs = SqlDagRuns(store)
        assert await runs.prune_leases(expired_for=30, limit=2) == 5  # statements of 2, 2, 1
        assert await runs.prune_leases(expired_for=30, limit=2) == 0
        assert not await store.outbox.acquire_lease("dagrun:live", "other", 60)
    finally:
        await store.close()
