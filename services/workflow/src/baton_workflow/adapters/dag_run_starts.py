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
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import Select, func, literal_column, select, text

from baton_eventstore import NewEvent, RowWrite, SqlEventStore
from baton_eventstore.model import check_start_by, refuse_if_late
from baton_workflow.adapters.dag_tables import dag_runs
from baton_workflow.service.dag_ports import RunsFull

_LOCK = text("SELECT pg_advisory_xact_lock(:key)")
_PG_LOCK = "SELECT pg_advisory_xact_lock($1)"
# 'running' as a literal, not a parameter: only then may a prepared statement's generic plan
# use the partial index `ix_dag_runs_running`, whose predicate it is.
_RUNNING = "SELECT count(*) FROM dag_runs WHERE owner = {} AND status = 'running'"
_PG_RUNNING = _RUNNING.format("$1")
_SQLITE_RUNNING = _RUNNING.format("?")


def running_query(owner: str) -> Select[int]:
    """How many of the owner's runs have not finished (every mode), by `ix_dag_runs_running`."""
    running = dag_runs.c.status == literal_column("'running'")  # as `_RUNNING`
    return select(func.count()).where(dag_runs.c.owner == owner, running)


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
        looked at once every lock is held (on SQLite, this process's write lock), and after
        it nothing waits on a lock. RowConflict when the start's request id made a run before.

        On the store's own appenders (PostgreSQL's asyncpg pool, a SQLite file's thread), as
        every other append of a run: through SQLAlchemy a start cost the workflow service
        about twice the CPU."""
        check_start_by(start_by)
        now = datetime.now(UTC)
        async with self._owners.one_at_a_time(owner):
            if (pg := self._store.appender) is not None:
                room = partial(_pg_room, owner, at_most)
                await pg.append(stream_id, 0, events, now, row, start_by, before=room)
            elif (lite := self._store.sqlite) is not None:
                counted = partial(_sqlite_room, owner, at_most)
                await lite.append(stream_id, 0, events, now, row, start_by, before=counted)
            else:
                await self._in_unit_of_work(owner, at_most, stream_id, events, row, start_by)

    async def _in_unit_of_work(
        self,
        owner: str,
        at_most: int,
        stream_id: str,
        events: Sequence[NewEvent],
        row: RowWrite,
        start_by: datetime | None,
    ) -> None:
        """Through SQLAlchemy, where the store has no appender of its own (SQLite in memory)."""
        async with self._store.transaction() as tx:
            conn = tx.connection
            if conn.dialect.name == "postgresql":
                await conn.execute(_LOCK, {"key": owner_lock_id(owner)})
            else:  # pysqlite begins a transaction only before DML: the count must be inside it
                await conn.exec_driver_sql("BEGIN IMMEDIATE")
            refuse_if_late(stream_id, start_by)
            _refuse_if_full(int((await conn.execute(running_query(owner))).scalar_one()), at_most)
            await tx.append(stream_id, 0, events)
            await tx.write_row(row)


async def _pg_room(owner: str, at_most: int, conn: Any) -> None:
    """On the append's asyncpg connection, in its transaction: the owner's lock, then the count
    (a statement of its own, so that it reads what the lock's last holder committed)."""
    await conn.execute(_PG_LOCK, owner_lock_id(owner))
    _refuse_if_full(int(await conn.fetchval(_PG_RUNNING, owner)), at_most)


def _sqlite_room(owner: str, at_most: int, conn: sqlite3.Connection) -> None:
    """On the append's sqlite3 connection, its transaction holding the database's write lock."""
    _refuse_if_full(int(conn.execute(_SQLITE_RUNNING, (owner,)).fetchone()[0]), at_most)


def _refuse_if_full(running: int, at_most: int) -> None:
    if running >= at_most:
        raise RunsFull(running)
