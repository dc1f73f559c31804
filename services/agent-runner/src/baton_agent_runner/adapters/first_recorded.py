"""`FirstRecorded`: one value per (user, idempotency key), the first recorded the only one,
and the claims on keys that keep replicas from calling the model twice (see `sql_logs`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from sqlalchemy import Integer, Table, delete, literal_column, or_, select
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import raw_postgres
from baton_agent_runner.adapters.log_statements import log_statements
from baton_agent_runner.adapters.sql import (
    Clock,
    claims,
    reachable,
    upsert,
)
from baton_agent_runner.service.ports import Claim, KeyReused, StoreUnavailable
from baton_contracts.agent_api import AgentReply, TaskResult
from baton_eventstore import autocommit
from baton_eventstore.engine import read, write_transaction

R = TypeVar("R", AgentReply, TaskResult)
DIGEST = "request_digest"
"""The column of what was asked (`request_digest`), in both logs' tables."""
PRUNE_BATCH = 5_000
"""The most rows one statement of a prune deletes: each is a short transaction of its own."""
PRUNE_BATCH_SECONDS = 30.0
"""How long one batch of a prune may take on PostgreSQL before it counts as an outage."""


class FirstRecorded(Generic[R]):
    """One pydantic value per (user, idempotency key) in `table`'s JSON `column`; the first
    value recorded under a key is the only one (replicas share the table, not a lock). Keys
    are claimed in `agent_claims` under `log`, by `holder` (this process)."""

    def __init__(
        self,
        engine: AsyncEngine,
        table: Table,
        column: str,
        model: type[R],
        names: tuple[str, str],
        holder: str,
        now: Clock,
    ) -> None:
        self._engine, self._table = autocommit(engine), table
        self._name, self._log = names  # for messages; the key's kind in `agent_claims`
        self._model: type[R] = model
        self._column = table.c[column]
        self._holder, self._now = holder, now
        self._insert = (
            upsert(engine, table)
            .on_conflict_do_nothing(index_elements=["user_id", "idempotency_key"])
            .returning(table.c.user_id)
        )
        self._columns = [c.name for c in table.c]
        assert self._columns[:2] == ["user_id", "idempotency_key"], "the statements say $1, $2"
        self._sql = log_statements(table.name, column, self._columns)

    async def get(self, user_id: str, key: str, digest: str | None = None) -> R | None:
        """The value recorded for the request `digest`, if any (see `_answering`)."""
        if raw_postgres.is_postgres(self._engine):
            with reachable(self._name):
                row = await raw_postgres.fetchrow(
                    self._engine, self._name, self._sql["get"], user_id, key, repeatable=True
                )
            if row is None:
                return None
            return self._answering(key, digest, row["digest"], row["value"])
        with reachable(self._name):
            stored: Any = (await read(self._engine, self._select_value(user_id, key))).first()
        return None if stored is None else self._answering(key, digest, stored[1], stored[0])

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[R]:
        """The value recorded for `digest` (as `get`); else the key claimed for this process
        for `seconds`, unless another holds a claim that has not run out (then when it runs
        out, if known).

        On PostgreSQL the server's clock sets and checks the expiry: replicas on several hosts
        share it, whatever their own clocks read. A SQLite file's processes share its host's
        clock (`now`)."""
        if raw_postgres.is_postgres(self._engine):
            # One round trip, as the plain look-up it replaces: the claim's row is UNLOGGED,
            # so taking it adds no flush to disk.
            args = (user_id, key, self._log, self._holder, seconds)
            with reachable(self._name):
                row = await raw_postgres.fetchrow(
                    self._engine, self._name, self._sql["claim"], *args
                )
            if row["value"] is not None:
                return Claim(recorded=self._answering(key, digest, row["digest"], row["value"]))
            if row["mine"] and row["held_by"] not in (None, self._holder):
                return await self._taken_over(user_id, key, digest)
            return Claim(mine=row["mine"], held_until=None if row["mine"] else row["held_until"])
        with reachable(self._name):
            async with write_transaction(self._engine) as conn:
                # pysqlite begins a transaction only before the INSERT: a put committed after
                # the look went unseen, and the key its claim freed was taken. The write lock
                # first makes the look and the claim one transaction.
                await conn.exec_driver_sql("BEGIN IMMEDIATE")
                stored = (await conn.execute(self._select_value(user_id, key))).first()
                if stored is not None:
                    return Claim(recorded=self._answering(key, digest, stored[1], stored[0]))
                now = self._now().astimezone(UTC)
                until = now + timedelta(seconds=seconds)
                if await conn.scalar(self._take(user_id, key, until, now)) is not None:
                    return Claim(mine=True)
                held = await conn.scalar(select(claims.c.expires_at).where(*self._of(user_id, key)))
        # SQLite keeps no time zone; every time written here is UTC.
        return Claim(held_until=None if held is None else held.replace(tzinfo=UTC))

    async def _taken_over(self, user_id: str, key: str, digest: str | None) -> Claim[R]:
        """The key's claim, taken from another holder: the value it recorded meanwhile, if any
        (and the claim given back), else the claim.

        The claim statement looks for a recorded value as the table was when it began; its
        insert of the claim sees the latest rows. One that began while the holder's put was
        being committed waited for that commit, then found the key free and took it, the
        value unseen: a replica waiting for the holder's answer called the model again. A
        second look costs a round trip only here, where the key changed hands."""
        recorded = await self.get(user_id, key, digest)
        if recorded is None:
            return Claim(mine=True)
        await self.release(user_id, key)
        return Claim(recorded=recorded)

    async def release(self, user_id: str, key: str) -> None:
        """Drop this process's claim on the key (another's is left alone)."""
        if raw_postgres.is_postgres(self._engine):
            args = (self._log, user_id, key, self._holder)
            with reachable(self._name):
                await raw_postgres.fetchval(self._engine, self._name, self._sql["release"], *args)
            return
        mine = (*self._of(user_id, key), claims.c.holder == self._holder)
        with reachable(self._name):
            async with write_transaction(self._engine) as conn:
                await conn.execute(delete(claims).where(*mine))

    async def put(self, row: dict[str, Any], value: R) -> R | None:
        """Record `row` (every column; `value` is the JSON one's) and drop this process's claim
        on its key; None when it was recorded, else the value another writer recorded first."""
        user_id: str = row["user_id"]
        key: str = row["idempotency_key"]
        # One statement, one round trip: it inserts, or returns no row when the key is taken.
        if raw_postgres.is_postgres(self._engine):
            args = [
                value.model_dump_json() if c == self._column.name else row[c] for c in self._columns
            ]
            with reachable(self._name):
                inserted = await raw_postgres.fetchval(
                    self._engine, self._name, self._sql["put"], *args, self._log, self._holder
                )
        else:
            row = {**row, self._column.name: value.model_dump(mode="json")}
            mine = (*self._of(user_id, key), claims.c.holder == self._holder)
            with reachable(self._name):
                async with write_transaction(self._engine) as conn:
                    inserted = await conn.scalar(self._insert.values(**row))
                    await conn.execute(delete(claims).where(*mine))
        if inserted is not None:
            return None
        first = await self.get(user_id, key, row.get(DIGEST))
        if first is None:
            raise StoreUnavailable(
                f"{self._name}: key {key!r} is taken but nothing is recorded", self._name
            )
        return first

    async def prune(self, older_than: datetime, batch: int = PRUNE_BATCH) -> int:
        """Delete the values recorded before `older_than`, `batch` rows per statement (each a
        short transaction of its own) until a statement finds fewer; how many went. Claims
        that have run out go too (those of replicas that died during a call).

        Several replicas pruning at once is harmless: they delete the same old rows, each
        row once. A key deleted so is recorded anew by its next `put` (one that meets the
        delete in between its insert and its read answers unavailable once, and its retry
        records it)."""
        if batch < 1:
            raise ValueError(f"batch: must be at least 1, not {batch}")
        older_than = older_than.astimezone(UTC)  # SQLite compares times as UTC text
        removed = 0
        with reachable(self._name):
            await self._prune_claims()
        while True:
            with reachable(self._name):
                gone = await self._prune_batch(older_than, batch)
            removed += gone
            if gone < batch:
                return removed
            # A first prune of a long backlog runs many batches: the turns' reads and writes
            # (on SQLite queued on the same process lock) go in between.
            await asyncio.sleep(0)

    async def _prune_claims(self) -> None:
        # One statement: what is left behind is a claim per call that a dying replica cut off
        # and nobody asked again, a handful, unlike the log's week of rows. Run out by the
        # clock that times claims (the server's on PostgreSQL, as `claim` reads it).
        if raw_postgres.is_postgres(self._engine):
            await self._cut_off_after(PRUNE_BATCH_SECONDS, self._sql["prune_claims"], self._log)
            return
        ran_out = (claims.c.log == self._log, claims.c.expires_at < self._now().astimezone(UTC))
        async with write_transaction(self._engine) as conn:
            await conn.execute(delete(claims).where(*ran_out))

    async def _prune_batch(self, older_than: datetime, batch: int) -> int:
        if raw_postgres.is_postgres(self._engine):
            found = await self._cut_off_after(
                PRUNE_BATCH_SECONDS, self._sql["prune"], older_than, batch
            )
            return int(found)
        rowid = literal_column("rowid", Integer)
        oldest = select(rowid).select_from(self._table)
        oldest = oldest.where(self._table.c.created_at < older_than).limit(batch)
        async with write_transaction(self._engine) as conn:
            found = await conn.execute(delete(self._table).where(rowid.in_(oldest)))
        return int(found.rowcount or 0)

    async def _cut_off_after(self, seconds: float, query: str, *args: Any) -> Any:
        """A prune statement on PostgreSQL, as an outage when it has no answer in `seconds`.

        A server that takes connections but never answers would hold the pruning loop (and a
        pooled connection) until TCP gives up; a batch is short, so a stall is an outage. Cut
        off, the connection is dropped (`raw_postgres`)."""
        try:
            async with asyncio.timeout(seconds):
                # Its own statement timeout: the engine's (the store timeout, a few seconds)
                # would cut a batch of large rows off every time, and the log never shrink.
                return await raw_postgres.fetchval_within(
                    self._engine, self._name, seconds, query, *args
                )
        except TimeoutError:
            raise StoreUnavailable(
                f"{self._name}: a prune had no answer within {seconds:g}s", self._name
            ) from None

    def _answering(self, key: str, digest: str | None, recorded: str | None, value: Any) -> R:
        """The recorded `value` (JSON text or parsed), if it answered the request `digest`;
        one recorded before the digest was kept (None) answers any request."""
        if digest is not None and recorded is not None and recorded != digest:
            raise KeyReused(f"{self._name}: key {key!r} was recorded for another request")
        if isinstance(value, str):
            return self._model.model_validate_json(value)
        return self._model.model_validate(value)

    def _select_value(self, user_id: str, key: str) -> Any:
        return select(self._column, self._table.c[DIGEST]).where(
            self._table.c.user_id == user_id, self._table.c.idempotency_key == key
        )

    def _of(self, user_id: str, key: str) -> tuple[Any, ...]:
        """The claim of the key in this log, whoever holds it."""
        return (claims.c.log == self._log, claims.c.user_id == user_id,
                claims.c.idempotency_key == key)  # fmt: skip

    def _take(self, user_id: str, key: str, until: datetime, now: datetime) -> Any:
        """Insert the claim; or take it over when it has run out or is this process's own."""
        insert = upsert(self._engine, claims).values(
            log=self._log, user_id=user_id, idempotency_key=key, holder=self._holder,
            expires_at=until,
        )  # fmt: skip
        return insert.on_conflict_do_update(
            index_elements=["log", "user_id", "idempotency_key"],
            set_={"holder": insert.excluded.holder, "expires_at": insert.excluded.expires_at},
            where=or_(claims.c.expires_at < now, claims.c.holder == insert.excluded.holder),
        ).returning(claims.c.holder)
