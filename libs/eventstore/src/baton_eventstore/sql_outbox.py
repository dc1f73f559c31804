"""The outbox table and relay lease on SQL: fetch in order, delete published, lease with a TTL.

A lease's expiry is set by the process that takes it and read by every other one. On
PostgreSQL, replicas run on hosts whose clocks differ (by seconds, or by a jump: an NTP step,
a VM resumed), so both are the database server's clock: one clock for every replica. A SQLite
file's processes share one host, and its clock.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Float, cast, delete, func, literal, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.asyncpg_append import AsyncpgAppender
from baton_eventstore.committed import CommittedLog
from baton_eventstore.engine import write_transaction
from baton_eventstore.model import OutboxRow, as_utc
from baton_eventstore.port import PRUNE_LIMIT, check_prune
from baton_eventstore.sqlite_append import SqliteAppender
from baton_eventstore.tables import outbox, outbox_lease

# Read-only: a fetch commits nothing, so it waits for no WAL flush.
_PG_FETCH = """
SELECT id, event_id, subject, body, headers, created_at FROM outbox
WHERE NOT (id = ANY(CAST($1 AS bigint[]))) ORDER BY id LIMIT $2
"""
_PG_DELETE = "DELETE FROM outbox WHERE id = ANY(CAST($1 AS bigint[]))"
# The server's clock, in epoch seconds: clock_timestamp(), not now(), which is the start of
# the transaction.
_PG_NOW = "extract(epoch FROM clock_timestamp())::float8"
_PG_ACQUIRE = f"""
INSERT INTO outbox_lease (name, holder, expires_at) VALUES ($1, $2, {_PG_NOW} + $3)
ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
WHERE outbox_lease.holder = EXCLUDED.holder OR outbox_lease.expires_at < {_PG_NOW}
RETURNING holder
"""
_PG_RELEASE = "UPDATE outbox_lease SET expires_at = 0 WHERE name = $1 AND holder = $2"
# The prefix is compared as a string, never as a LIKE pattern: a run id may hold `_` or `%`.
# One row back (the count), however many rows go.
# At most $4 rows (`PRUNE_LIMIT`); SKIP LOCKED: replicas pruning at once take other rows.
_PG_PRUNE = f"""
WITH gone AS (
    DELETE FROM outbox_lease WHERE name IN (
        SELECT name FROM outbox_lease
        WHERE substr(name, 1, $2) = $1 AND expires_at < {_PG_NOW} - $3
        LIMIT $4 FOR UPDATE SKIP LOCKED
    )
    RETURNING 1
)
SELECT count(*) AS n FROM gone
"""


class SqlOutbox:
    """The `outbox` and `outbox_lease` tables of one database.

    With `raw` (PostgreSQL on asyncpg), every statement goes straight to asyncpg: a fetch runs
    for every batch the relay publishes, and leases (the relay's, and one per DAG run that is
    being driven) are taken about as often. With `sqlite` (a SQLite file), fetch and delete
    are one call each on the appender's thread; leases stay on SQLAlchemy.

    `clock` (epoch seconds) times leases on SQLite only: on PostgreSQL the server's clock does.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        raw: AsyncpgAppender | None = None,
        sqlite: SqliteAppender | None = None,
        committed: CommittedLog | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._engine = engine
        self._clock = clock
        self._raw = raw
        self._sqlite = sqlite
        self._committed = committed

    @property
    def committed(self) -> CommittedLog | None:
        """What the store's asyncpg appender committed (PostgreSQL); None elsewhere."""
        return self._committed

    async def fetch(self, limit: int, exclude: Sequence[int] = ()) -> list[OutboxRow]:
        """The oldest `limit` rows not in `exclude`, in id order."""
        if self._raw is not None:
            return _rows(await self._raw.fetch(_PG_FETCH, list(exclude), limit, repeatable=True))
        if self._sqlite is not None:
            return await self._sqlite.fetch(limit, exclude)
        query = select(outbox).order_by(outbox.c.id).limit(limit)
        if exclude:
            query = query.where(outbox.c.id.not_in(list(exclude)))
        async with self._engine.connect() as conn:
            rows = await conn.execute(query)
            return [
                OutboxRow(
                    r.id,
                    r.event_id,
                    r.subject,
                    bytes(r.body),
                    dict(r.headers),
                    as_utc(r.created_at),
                )
                for r in rows
            ]

    async def delete(self, ids: Sequence[int]) -> None:
        """Forget rows that were published."""
        if not ids:
            return
        if self._raw is not None:
            await self._raw.fetch(_PG_DELETE, list(ids), repeatable=True)
            return
        if self._sqlite is not None:
            await self._sqlite.delete(ids)
            return
        async with write_transaction(self._engine) as conn:
            await conn.execute(delete(outbox).where(outbox.c.id.in_(list(ids))))

    async def count(self) -> int:
        """Rows in the table: those waiting, and those published but not deleted yet."""
        async with self._engine.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(outbox))).scalar_one())

    async def acquire_lease(self, name: str, holder: str, ttl: float) -> bool:
        """Take the lease if free or expired, renew it if ours; one atomic upsert."""
        if self._raw is not None:
            return bool(await self._raw.fetch(_PG_ACQUIRE, name, holder, ttl, repeatable=True))
        insert = pg_insert if self._engine.dialect.name == "postgresql" else sqlite_insert
        now = self._now()
        upsert = insert(outbox_lease).values(name=name, holder=holder, expires_at=now + ttl)
        statement = upsert.on_conflict_do_update(
            index_elements=[outbox_lease.c.name],
            set_={"holder": holder, "expires_at": upsert.excluded.expires_at},
            where=(outbox_lease.c.holder == holder) | (outbox_lease.c.expires_at < now),
        ).returning(outbox_lease.c.holder)
        async with write_transaction(self._engine) as conn:
            return (await conn.execute(statement)).first() is not None

    async def release_lease(self, name: str, holder: str) -> None:
        """Expire the lease now if `holder` has it."""
        if self._raw is not None:
            await self._raw.fetch(_PG_RELEASE, name, holder, repeatable=True)
            return
        statement = (
            update(outbox_lease)
            .where(outbox_lease.c.name == name, outbox_lease.c.holder == holder)
            .values(expires_at=0.0)
        )
        async with write_transaction(self._engine) as conn:
            await conn.execute(statement)

    async def prune_leases(self, prefix: str, expired_for: float, limit: int = PRUNE_LIMIT) -> int:
        """Delete up to `limit` leases named `prefix...` that expired more than `expired_for`
        seconds ago; how many went. An expired lease and no lease are taken alike."""
        check_prune(prefix, limit)
        if self._raw is not None:
            # Repeatable: a second run deletes only what is still expired, as the first would
            # have (then counting only what it deleted itself).
            found = await self._raw.fetch(
                _PG_PRUNE, prefix, len(prefix), expired_for, limit, repeatable=True
            )
            return int(found[0]["n"])
        expired = (
            select(outbox_lease.c.name)
            .where(
                func.substr(outbox_lease.c.name, 1, len(prefix)) == prefix,
                outbox_lease.c.expires_at < self._now() - expired_for,
            )
            .limit(limit)
        )
        statement = delete(outbox_lease).where(outbox_lease.c.name.in_(expired))
        async with write_transaction(self._engine) as conn:
            return int((await conn.execute(statement)).rowcount)

    def _now(self) -> ColumnElement[float]:
        """Now in epoch seconds, as a statement reads it: the server's clock on PostgreSQL."""
        if self._engine.dialect.name == "postgresql":
            return cast(func.extract("epoch", func.clock_timestamp()), Float)
        return literal(self._clock())


def _rows(found: Sequence[Any]) -> list[OutboxRow]:
    return [
        OutboxRow(
            r["id"],
            r["event_id"],
            r["subject"],
            r["body"],
            json.loads(r["headers"]),
            r["created_at"],
        )
        for r in found
    ]
