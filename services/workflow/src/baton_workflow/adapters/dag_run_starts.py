"""A run's start within its owner's limit of runs running at once (`workflow_max_runs_per_user`).

The owner's running runs are counted, and the start appended, in one transaction that no other
start of the same owner runs beside, on any replica: on PostgreSQL it first takes a transaction
lock of the owner (`pg_advisory_xact_lock`), which every replica of the database takes too
and other owners' starts never wait for; on SQLite it takes the database's write lock before
the count (`BEGIN IMMEDIATE`). Counted in one step and appended in another, starts of one user
arriving together (or at two replicas) had all found room, and had all gone in.

A process's starts of one owner queue on a lock of the process first: a burst of one user's
starts then holds one of the pool's connections, not one each while they wait on the
database's lock.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Select, func, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from baton_eventstore import NewEvent, RowWrite, SqlEventStore
from baton_eventstore.model import check_start_by, refuse_if_late
from baton_workflow.adapters.dag_tables import dag_runs
from baton_workflow.service.dag_ports import RunsFull

_LOCK = text("SELECT pg_advisory_xact_lock(:key)")


def running_query(owner: str) -> Select[int]:
    """How many of the owner's runs have not finished (every mode), by `ix_dag_runs_running`."""
    return select(func.count()).where(dag_runs.c.owner == owner, dag_runs.c.status == "running")


def owner_lock_id(owner: str) -> int:
    """The advisory lock id of the owner's starts: a signed 64-bit hash of the owner. Two owners
    that share one only wait for each other's starts; the prefix keeps clear of other users of
    advisory locks on the database (the migrations' lock is a CRC-32, below 2**32)."""
    named = f"baton.workflow.dag_run_start\0{owner}".encode()
    return int.from_bytes(hashlib.blake2b(named, digest_size=8).digest(), "big", signed=True)


@dataclass
class _Held:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    holders: int = 0


@dataclass
class OwnerLocks:
    """A lock per owner in this process, dropped when its last holder leaves."""

    _owners: dict[str, _Held] = field(default_factory=dict)

    @asynccontextmanager
    async def one_at_a_time(self, owner: str) -> AsyncIterator[None]:
        """Hold the owner's lock while the block runs; waits while another holds it."""
        held = self._owners.setdefault(owner, _Held())
        held.holders += 1
        try:
            async with held.lock:
                yield
        finally:
            held.holders -= 1
            if held.holders == 0:
                del self._owners[owner]


class LimitedStarts:
    """Appends a run's first events and its `dag_runs` row, only while its owner has room."""

    def __init__(self, store: SqlEventStore) -> None:
        self._store = store
        self._owners = OwnerLocks()

    async def append(
        self,
        owner: str,
        at_most: int,
        stream_id: str,
        events: Sequence[NewEvent],
        row: RowWrite,
        start_by: datetime | None,
    ) -> None:
        """Append unless the owner has `at_most` runs running: RunsFull then, nothing written.
        StartByPassed, nothing written, when it had not begun writing by `start_by` (aware):
        every wait (this process's lock, a pooled connection, the database's lock) is before
        that look, and after it nothing waits on a lock (the owner's key is held)."""
        check_start_by(start_by)
        async with self._owners.one_at_a_time(owner), self._store.transaction() as tx:
            await _lock_owner(tx.connection, owner)
            refuse_if_late(stream_id, start_by)
            running = int((await tx.connection.execute(running_query(owner))).scalar_one())
            if running >= at_most:
                raise RunsFull(running)
            await tx.append(stream_id, 0, events)
            await tx.write_row(row)  # RowConflict: the start's request id made a run before


async def _lock_owner(conn: AsyncConnection, owner: str) -> None:
    """Until the transaction ends, no other start of `owner` counts (on SQLite, no other write)."""
    if conn.dialect.name == "postgresql":
        await conn.execute(_LOCK, {"key": owner_lock_id(owner)})
    else:  # pysqlite begins a transaction only before DML: the count must be inside it
        await conn.exec_driver_sql("BEGIN IMMEDIATE")
