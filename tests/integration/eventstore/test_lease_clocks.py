"""Leases between replicas whose clocks disagree, on PostgreSQL (the only store replicas on
several hosts share).

A host's clock may run seconds apart from another's, or jump (an NTP step, a VM resumed). A
lease whose expiry one host writes and another reads then went to a second replica while its
holder was alive and renewing it (a relay publishing twice, a DAG run driven twice), or stayed
taken long after its holder died. Each replica here is an outbox on the same database with a
clock of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from baton_eventstore import SqlEventStore
from baton_eventstore.sql_outbox import SqlOutbox

TTL = 10.0


def clock(offset: float) -> Callable[[], float]:
    """A host's wall clock, `offset` seconds from the true time."""
    return lambda: time.time() + offset


@pytest.mark.postgres
class TestPostgresLeaseClocks:
    """The store's own outbox: the raw asyncpg statements."""

    @pytest.fixture
    def replica(self, postgres_store: SqlEventStore) -> Callable[[float], Any]:
        """The outbox as a replica whose clock is `offset` seconds off sees it."""
        engine, appender = postgres_store.engine, postgres_store.appender
        return lambda offset: SqlOutbox(engine, appender, clock=clock(offset))

    async def test_a_replica_whose_clock_runs_ahead_does_not_take_a_held_lease(
        self, replica: Callable[[float], Any]
    ) -> None:
        holder, ahead = replica(0.0), replica(TTL + 20)
        assert await holder.acquire_lease("outbox", "holder", TTL)
        assert not await ahead.acquire_lease("outbox", "ahead", TTL)
        assert await holder.acquire_lease("outbox", "holder", TTL)  # still the holder's

    async def test_a_holder_whose_clock_jumped_back_keeps_its_lease(
        self, replica: Callable[[float], Any]
    ) -> None:
        jumped_back, other = replica(-3600.0), replica(0.0)
        assert await jumped_back.acquire_lease("dagrun:r1", "holder", TTL)
        assert not await other.acquire_lease("dagrun:r1", "other", TTL)

    async def test_a_dead_holder_whose_clock_jumped_ahead_loses_its_lease_on_time(
        self, replica: Callable[[float], Any]
    ) -> None:
        # A lease that ran out a second ago, taken by a host an hour ahead: it is free now,
        # not an hour from now.
        jumped_ahead, other = replica(3600.0), replica(0.0)
        assert await jumped_ahead.acquire_lease("dagrun:r1", "dead", -1.0)
        assert await other.acquire_lease("dagrun:r1", "other", TTL)

    async def test_a_pruning_replica_whose_clock_runs_ahead_leaves_a_held_lease(
        self, replica: Callable[[float], Any]
    ) -> None:
        holder, ahead = replica(0.0), replica(3600.0)
        assert await holder.acquire_lease("dagrun:live", "holder", TTL)
        assert await ahead.prune_leases("dagrun:", TTL) == 0
        assert not await ahead.acquire_lease("dagrun:live", "ahead", TTL)


@pytest.mark.postgres
class TestPostgresSqlAlchemyLeaseClocks(TestPostgresLeaseClocks):
    """An outbox on the engine alone: the SQLAlchemy statements, on PostgreSQL."""

    @pytest.fixture
    def replica(self, postgres_store: SqlEventStore) -> Callable[[float], Any]:
        return lambda offset: SqlOutbox(postgres_store.engine, clock=clock(offset))
