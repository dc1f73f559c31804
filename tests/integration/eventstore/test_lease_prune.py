"""Pruning expired leases, one contract run on memory, SQLite and PostgreSQL.

A DAG run takes a lease named `dagrun:<run_id>` and a finished run never gives it back, so
without pruning the lease table keeps one row per run ever driven. An expired lease is taken
exactly as a missing one is: deleting it changes nothing for anyone who takes a lease after.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select

from baton_eventstore import InMemoryEventStore, SqlEventStore
from baton_eventstore.sql_outbox import SqlOutbox
from baton_eventstore.tables import outbox_lease


async def expired(outbox: Any, name: str, ago: float = 60.0) -> None:
    """A lease of `name` that ran out `ago` seconds ago."""
    assert await outbox.acquire_lease(name, "gone", -ago)


class LeasePruneContract:
    """What every outbox's `prune_leases` must do; subclasses provide the `outbox` fixture."""

    async def test_only_expired_leases_with_the_prefix_go(self, outbox: Any) -> None:
        await expired(outbox, "dagrun:old")
        assert await outbox.acquire_lease("dagrun:released", "me", 60)
        await outbox.release_lease("dagrun:released", "me")  # an unfinished run given up
        await expired(outbox, "dagrun:recent", ago=1.0)
        assert await outbox.acquire_lease("dagrun:live", "me", 60)
        await expired(outbox, "workflow-outbox")  # another component's, expired too
        assert await outbox.acquire_lease("outbox", "relay", 60)  # the relay's, live

        assert await outbox.prune_leases("dagrun:", 10) == 2
        assert await outbox.prune_leases("dagrun:", 10) == 0

        # Still there: the lease that ran out after the cut-off, the other component's, and
        # both live ones (still held: nobody else can take them).
        assert await outbox.prune_leases("dagrun:", 0) == 1
        assert await outbox.prune_leases("workflow-outbox", 0) == 1
        assert not await outbox.acquire_lease("dagrun:live", "other", 60)
        assert not await outbox.acquire_lease("outbox", "other", 60)

    async def test_a_live_lease_is_never_pruned(self, outbox: Any) -> None:
        assert await outbox.acquire_lease("dagrun:live", "me", 60)
        assert await outbox.prune_leases("dagrun:", 0) == 0
        assert not await outbox.acquire_lease("dagrun:live", "other", 60)

    async def test_a_pruned_name_can_be_taken_again(self, outbox: Any) -> None:
        await expired(outbox, "dagrun:r1")
        assert await outbox.prune_leases("dagrun:", 0) == 1
        assert await outbox.acquire_lease("dagrun:r1", "next", 60)
        assert not await outbox.acquire_lease("dagrun:r1", "gone", 60)  # next holds it now
        assert await outbox.acquire_lease("dagrun:r1", "next", 60)  # and renews it

    async def test_the_prefix_is_a_plain_string_not_a_pattern(self, outbox: Any) -> None:
        names = ["dagrun:a_b", "dagrun:axb", "dagrun:%y", "dagrun:zy", "DAGRUN:up", "dagrun\\z"]
        names += ["rün:1", "run:1"]  # a prefix with a non-ASCII character: lengths in characters
        for name in names:
            await expired(outbox, name)
        assert await outbox.prune_leases("dagrun:a_", 0) == 1  # not dagrun:axb
        assert await outbox.prune_leases("dagrun:%", 0) == 1  # not dagrun:zy
        assert await outbox.prune_leases("rün:", 0) == 1  # not run:1
        assert await outbox.prune_leases("dagrun\\", 0) == 1
        assert await outbox.prune_leases("dagrun:", 0) == 2  # axb and zy; not DAGRUN:up
        assert await outbox.prune_leases("DAGRUN:", 0) == 1
        assert await outbox.prune_leases("run:", 0) == 1

    async def test_an_empty_prefix_is_refused(self, outbox: Any) -> None:
        await expired(outbox, "outbox")
        with pytest.raises(ValueError, match="prefix"):
            await outbox.prune_leases("", 0)
        assert await outbox.prune_leases("outbox", 0) == 1  # it was left alone

    async def test_one_call_deletes_at_most_limit_leases_and_the_next_the_rest(
        self, outbox: Any
    ) -> None:
        # A first prune after an upgrade meets every run's lease at once: one call stays short.
        for n in range(5):
            await expired(outbox, f"dagrun:{n}")
        assert await outbox.acquire_lease("dagrun:live", "me", 60)
        assert await outbox.prune_leases("dagrun:", 0, limit=2) == 2
        assert await outbox.prune_leases("dagrun:", 0, limit=2) == 2
        assert await outbox.prune_leases("dagrun:", 0, limit=2) == 1
        assert await outbox.prune_leases("dagrun:", 0, limit=2) == 0
        assert not await outbox.acquire_lease("dagrun:live", "other", 60)

    async def test_a_limit_below_one_is_refused(self, outbox: Any) -> None:
        await expired(outbox, "dagrun:old")
        with pytest.raises(ValueError, match="limit"):
            await outbox.prune_leases("dagrun:", 0, limit=0)
        assert await outbox.prune_leases("dagrun:", 0) == 1  # it was left alone


class TestMemoryLeasePrune(LeasePruneContract):
    @pytest.fixture
    def outbox(self) -> Any:
        return InMemoryEventStore().outbox


class SqlLeasePrune(LeasePruneContract):
    """On SQL the rows themselves go, not only their effect."""

    @pytest.fixture
    def outbox(self, store: SqlEventStore) -> Any:
        return store.outbox

    async def test_the_rows_are_deleted(self, store: SqlEventStore, outbox: Any) -> None:
        for n in range(3):
            await expired(outbox, f"dagrun:{n}")
        assert await outbox.acquire_lease("dagrun:live", "me", 60)
        assert await outbox.acquire_lease("workflow-outbox", "relay", 60)

        assert await outbox.prune_leases("dagrun:", 0) == 3

        async with store.engine.connect() as conn:
            rows = (await conn.execute(select(outbox_lease.c.name))).scalars().all()
        assert sorted(rows) == ["dagrun:live", "workflow-outbox"]


class TestSqliteLeasePrune(SqlLeasePrune):
    @pytest.fixture
    async def store(self, sqlite_url: str) -> AsyncIterator[SqlEventStore]:
        store = await SqlEventStore.from_url(sqlite_url)
        yield store
        await store.close()


@pytest.mark.postgres
class TestPostgresLeasePrune(SqlLeasePrune):
    """The store's own outbox: one raw asyncpg statement."""

    @pytest.fixture
    def store(self, postgres_store: SqlEventStore) -> SqlEventStore:
        return postgres_store


@pytest.mark.postgres
class TestPostgresSqlAlchemyLeasePrune(TestPostgresLeasePrune):
    """An outbox on the engine alone: the SQLAlchemy statement, on PostgreSQL."""

    @pytest.fixture
    def outbox(self, store: SqlEventStore) -> Any:
        return SqlOutbox(store.engine)
