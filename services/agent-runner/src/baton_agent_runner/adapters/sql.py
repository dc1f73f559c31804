"""The agent-runner's own tables: inbox items, memory facts, and replies by idempotency key."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    case,
    delete,
    func,
    inspect,
    literal_column,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import raw_postgres
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.ports import Mention, StoreUnavailable
from baton_contracts.agent_api import AgentReply, InboxItem, MemoryFact, TaskResult
from baton_eventstore import autocommit, is_unavailable
from baton_eventstore.engine import write_transaction

COMPONENT = "agent_runner"
metadata = MetaData()

inbox_items = Table(
    "agent_inbox_items",
    metadata,
    Column("item_id", String(64), primary_key=True),
    Column("user_id", String(256), nullable=False),
    Column("content", Text, nullable=False),
    Column("source", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # False for an item that was deferred until the inbox collector has told the user about
    # it: the brain dump's start promotes deferred items, its first turn mentions them.
    Column("announced", Boolean, nullable=False, server_default=true()),
    Index("ix_agent_inbox_user", "user_id", "status"),
)
memory_facts = Table(
    "agent_memory_facts",
    metadata,
    Column("user_id", String(256), primary_key=True),
    Column("category", String(64), primary_key=True),
    Column("key", String(128), primary_key=True),
    Column("text", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
replies = Table(
    "agent_replies",
    metadata,
    Column("user_id", String(256), primary_key=True),
    Column("idempotency_key", String(200), primary_key=True),
    Column("reply", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # For the prune (`_FirstRecorded.prune`), as is task_results'; see step 4.
    Index("ix_agent_replies_created_at", "created_at"),
)


# Its own MetaData: step 1 creates every table of `metadata`, and must keep creating only those.
task_results = Table(
    "agent_task_results",
    MetaData(),
    Column("user_id", String(256), primary_key=True),
    Column("idempotency_key", String(200), primary_key=True),
    Column("run_id", String(64), nullable=False),
    Column("step_id", String(128), nullable=False),
    Column("result", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_agent_task_results_created_at", "created_at"),
)


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn)


def _create_v2(conn: Connection) -> None:
    task_results.create(conn)


def _add_announced_v3(conn: Connection) -> None:
    # Step 1 creates today's table, which has the column already.
    if "announced" in {c["name"] for c in inspect(conn).get_columns(inbox_items.name)}:
        return
    default = "TRUE" if conn.dialect.name == "postgresql" else "1"
    column = f"announced BOOLEAN NOT NULL DEFAULT {default}"
    conn.execute(text(f"ALTER TABLE {inbox_items.name} ADD COLUMN {column}"))
    deferred = inbox_items.c.status == "deferred"
    conn.execute(update(inbox_items).where(deferred).values(announced=False))


def _index_created_at_v4(conn: Connection) -> None:
    # Without it, every prune reads the whole table (a week of replies and results, JSON and
    # all) to find the few rows it deletes: a full scan an hour on each replica, and on SQLite
    # one inside the write transaction that every turn's writes queue behind. With it a prune
    # reads only what it deletes (a table of 1M rows: 0.2 ms against 230 ms to find nothing);
    # an insert, which appends to the index's last page, costs no more within the noise
    # (about 0.31 ms either way on PostgreSQL 15, 20,000 inserts each).
    # Steps 1 and 2 create today's tables, which have the indexes already.
    for table in (replies, task_results):
        for index in table.indexes:
            index.create(conn, checkfirst=True)


STEPS = [_create_v1, _create_v2, _add_announced_v3, _index_created_at_v4]
"""Migration steps of the agent-runner's tables; append, never edit."""

Clock = Callable[[], datetime]
R = TypeVar("R", AgentReply, TaskResult)
PRUNE_BATCH = 5_000
"""The most rows one statement of a prune deletes: each is a short transaction of its own."""
PRUNE_BATCH_SECONDS = 30.0
"""How long one batch of a prune may take on PostgreSQL before it counts as an outage."""
_WORD = re.compile(r"\w+")

# The PostgreSQL statements of the hot paths (see `raw_postgres`); JSON is read as text and
# validated straight from it.
_COUNT_ITEMS = {
    False: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status <> $2",
    True: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status = $2",
}


@contextmanager
def _reachable(store: str) -> Iterator[None]:
    """Turn "the database is not there" into the port's `StoreUnavailable`."""
    try:
        yield
    except Exception as exc:
        # Down, refusing connections, no free pooled connection, a connection lost, SQLite
        # locked: the event store's test, shared by every service.
        if not is_unavailable(exc):
            raise
        raise StoreUnavailable(f"{store}: {exc.__class__.__name__}: {exc}") from exc


def upsert(engine: AsyncEngine, table: Table) -> Any:
    """An INSERT of this database's dialect, which knows ON CONFLICT (PostgreSQL, SQLite)."""
    return (pg_insert if engine.dialect.name == "postgresql" else sqlite_insert)(table)


class SqlInboxStore:
    """Inbox items in `agent_inbox_items`."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = autocommit(engine), now
        self._insert = upsert(engine, inbox_items).on_conflict_do_nothing(
            index_elements=["item_id"]
        )

    async def add(self, user_id: str, items: list[NewInboxItem]) -> None:
        """Save items with `source="onboarding"`; an id already saved is skipped (a retry)."""
        if not items:
            return
        now = self._now()
        rows = [
            {
                "item_id": item.item_id,
                "user_id": user_id,
                "content": item.content,
                "source": "onboarding",
                "status": item.status,
                "announced": item.status != "deferred",
                # One turn's items keep their order when listed newest first.
                "created_at": now + timedelta(microseconds=index),
            }
            for index, item in enumerate(items)
        ]
        # One multi-row statement: all the items or none, in one round trip.
        with _reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(self._insert.values(rows))

    async def promote_deferred(self, user_id: str) -> int:
        """Deferred items become new ones (the brain dump started); how many did."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.status == "deferred")
        with _reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = await conn.execute(update(inbox_items).where(mine).values(status="new"))
        return int(found.rowcount or 0)

    async def unannounced(self, user_id: str) -> list[Mention]:
        """Items that were deferred and not yet mentioned, promoted if still deferred (the
        brain dump has started), in the order they were deferred; none is marked mentioned."""
        mine = (inbox_items.c.user_id == user_id) & ~inbox_items.c.announced
        promote = (
            update(inbox_items)
            .where(mine)
            .values(
                status=case((inbox_items.c.status == "deferred", "new"), else_=inbox_items.c.status)
            )
            .returning(inbox_items.c.item_id, inbox_items.c.content, inbox_items.c.created_at)
        )
        with _reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = (await conn.execute(promote)).all()
        ordered = sorted(found, key=lambda row: (row.created_at, row.item_id))
        return [Mention(item_id=row.item_id, content=row.content) for row in ordered]

    async def mark_announced(self, user_id: str, item_ids: list[str]) -> None:
        """These items were told to the user: no later turn mentions them again."""
        if not item_ids:
            return
        told = (inbox_items.c.user_id == user_id) & inbox_items.c.item_id.in_(item_ids)
        with _reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(update(inbox_items).where(told).values(announced=True))

    async def count(self, user_id: str, status: str | None) -> int:
        """Items with `status`; None counts every item that is not deferred."""
        if raw_postgres.is_postgres(self._engine):
            with _reachable("inbox"):
                found = await raw_postgres.fetchval(
                    self._engine,
                    "inbox",
                    _COUNT_ITEMS[bool(status)],
                    user_id,
                    status or "deferred",
                )
            return int(found or 0)
        where = inbox_items.c.user_id == user_id
        where &= inbox_items.c.status == status if status else inbox_items.c.status != "deferred"
        with _reachable("inbox"):
            async with self._engine.connect() as conn:
                return int(await conn.scalar(select(func.count()).where(where)) or 0)

    async def list_items(self, user_id: str, limit: int) -> list[InboxItem]:
        """Up to `limit` of the user's items that are not deferred, newest first."""
        query = (
            select(inbox_items)
            .where(inbox_items.c.user_id == user_id, inbox_items.c.status != "deferred")
            .order_by(inbox_items.c.created_at.desc(), inbox_items.c.item_id.desc())
            .limit(limit)
        )
        with _reachable("inbox"):
            async with self._engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        return [
            InboxItem(
                item_id=row.item_id,
                content=row.content,
                source=row.source,
                status=row.status,
                # SQLite keeps no time zone; every time written here is UTC.
                created_at=row.created_at.replace(tzinfo=row.created_at.tzinfo or UTC),
            )
            for row in rows
        ]


class SqlMemoryStore:
    """Facts in `agent_memory_facts`: the SQL stand-in for the Mem0 adapter."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = autocommit(engine), now
        self._upsert = upsert(engine, memory_facts)

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> None:
        """Insert, or replace the text of the same key (a correction)."""
        row = {"user_id": user_id, "category": category, "key": key}
        changes = {"text": text, "updated_at": self._now()}
        statement = self._upsert.values(**row, **changes).on_conflict_do_update(
            index_elements=["user_id", "category", "key"], set_=changes
        )
        with _reachable("memory"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(statement)

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in `category`, by key."""
        return {fact.key: fact.text for fact in await self._select(user_id, category)}

    async def count(self, user_id: str, category: str | None) -> int:
        """Facts of the user, in one category or all."""
        where = memory_facts.c.user_id == user_id
        if category:
            where &= memory_facts.c.category == category
        with _reachable("memory"):
            async with self._engine.connect() as conn:
                return int(await conn.scalar(select(func.count()).where(where)) or 0)

    async def list_facts(self, user_id: str, category: str | None, limit: int) -> list[MemoryFact]:
        """Up to `limit` facts, by category and key."""
        return (await self._select(user_id, category))[:limit]

    async def search(
        self, user_id: str, query: str, category: str | None, limit: int
    ) -> list[MemoryFact]:
        """The `limit` facts sharing the most words with `query` (no vectors here)."""
        wanted = _words(query)
        facts = await self._select(user_id, category)
        ranked = sorted(facts, key=lambda fact: -len(wanted & _words(fact.text)))
        return ranked[:limit]

    async def _select(self, user_id: str, category: str | None) -> list[MemoryFact]:
        query = select(memory_facts).where(memory_facts.c.user_id == user_id)
        if category is not None:
            query = query.where(memory_facts.c.category == category)
        query = query.order_by(memory_facts.c.category, memory_facts.c.key)
        with _reachable("memory"):
            async with self._engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        return [MemoryFact(category=row.category, key=row.key, text=row.text) for row in rows]


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}


class _FirstRecorded(Generic[R]):
    """One pydantic value per (user, idempotency key) in `table`'s JSON `column`; the first
    value recorded under a key is the only one (replicas share the table, not a lock)."""

    def __init__(
        self, engine: AsyncEngine, table: Table, column: str, model: type[R], name: str
    ) -> None:
        self._engine, self._table, self._name = autocommit(engine), table, name
        self._model: type[R] = model
        self._column = table.c[column]
        self._insert = (
            upsert(engine, table)
            .on_conflict_do_nothing(index_elements=["user_id", "idempotency_key"])
            .returning(table.c.user_id)
        )
        # The PostgreSQL statements (see `raw_postgres`), from the table: JSON is read as text
        # and validated straight from it.
        self._columns = [c.name for c in table.c]
        values = ", ".join(f"${n}" for n in range(1, len(self._columns) + 1))
        self._get_sql = (
            f"SELECT {column}::text FROM {table.name} WHERE user_id = $1 AND idempotency_key = $2"
        )
        self._put_sql = (
            f"INSERT INTO {table.name} ({', '.join(self._columns)}) VALUES ({values}) "
            "ON CONFLICT (user_id, idempotency_key) DO NOTHING RETURNING 1"
        )
        # One batch of a prune: up to $2 rows recorded before $1, only their count back. Found
        # by their place (`ctid`, a TID scan), not joined on the key. SKIP LOCKED: a replica
        # pruning at the same moment takes other old rows instead of waiting for these ones.
        self._prune_sql = (
            f"WITH gone AS (DELETE FROM {table.name} WHERE ctid = ANY(ARRAY("
            f"SELECT ctid FROM {table.name} WHERE created_at < $1 LIMIT $2 "
            "FOR UPDATE SKIP LOCKED)) RETURNING 1) SELECT count(*) FROM gone"
        )

    async def get(self, user_id: str, key: str) -> R | None:
        """The recorded value, if any."""
        if raw_postgres.is_postgres(self._engine):
            with _reachable(self._name):
                text = await raw_postgres.fetchval(
                    self._engine, self._name, self._get_sql, user_id, key
                )
            return None if text is None else self._model.model_validate_json(text)
        query = select(self._column).where(
            self._table.c.user_id == user_id, self._table.c.idempotency_key == key
        )
        with _reachable(self._name):
            async with self._engine.connect() as conn:
                stored = await conn.scalar(query)
        return None if stored is None else self._model.model_validate(stored)

    async def put(self, row: dict[str, Any], value: R) -> R | None:
        """Record `row` (every column; `value` is the JSON one's); None when it was recorded,
        else the value another writer recorded first."""
        # One statement, one round trip: it inserts, or returns no row when the key is taken.
        if raw_postgres.is_postgres(self._engine):
            args = [
                value.model_dump_json() if c == self._column.name else row[c] for c in self._columns
            ]
            with _reachable(self._name):
                inserted = await raw_postgres.fetchval(
                    self._engine, self._name, self._put_sql, *args
                )
        else:
            row = {**row, self._column.name: value.model_dump(mode="json")}
            with _reachable(self._name):
                async with write_transaction(self._engine) as conn:
                    inserted = await conn.scalar(self._insert.values(**row))
        if inserted is not None:
            return None
        first = await self.get(row["user_id"], row["idempotency_key"])
        if first is None:
            key = row["idempotency_key"]
            raise StoreUnavailable(f"{self._name}: key {key!r} is taken but nothing is recorded")
        return first

    async def prune(self, older_than: datetime, batch: int = PRUNE_BATCH) -> int:
        """Delete the values recorded before `older_than`, `batch` rows per statement (each a
        short transaction of its own) until a statement finds fewer; how many went.

        Several replicas pruning at once is harmless: they delete the same old rows, each
        row once. A key deleted so is recorded anew by its next `put` (one that meets the
        delete in between its insert and its read answers unavailable once, and its retry
        records it)."""
        if batch < 1:
            raise ValueError(f"batch: must be at least 1, not {batch}")
        older_than = older_than.astimezone(UTC)  # SQLite compares times as UTC text
        removed = 0
        while True:
            with _reachable(self._name):
                gone = await self._prune_batch(older_than, batch)
            removed += gone
            if gone < batch:
                return removed
            # A first prune of a long backlog runs many batches: the turns' reads and writes
            # (on SQLite queued on the same process lock) go in between.
            await asyncio.sleep(0)

    async def _prune_batch(self, older_than: datetime, batch: int) -> int:
        if raw_postgres.is_postgres(self._engine):
            # A server that takes connections but never answers would hold the pruning loop
            # (and a pooled connection) until TCP gives up; a batch is short, so a stall is an
            # outage. Cut off, the connection is dropped (`raw_postgres.fetchval`).
            try:
                async with asyncio.timeout(PRUNE_BATCH_SECONDS):
                    found = await raw_postgres.fetchval(
                        self._engine, self._name, self._prune_sql, older_than, batch
                    )
            except TimeoutError:
                raise StoreUnavailable(
                    f"{self._name}: a prune of {batch} rows had no answer within "
                    f"{PRUNE_BATCH_SECONDS:g}s"
                ) from None
            return int(found)
        rowid = literal_column("rowid", Integer)
        oldest = select(rowid).select_from(self._table)
        oldest = oldest.where(self._table.c.created_at < older_than).limit(batch)
        async with write_transaction(self._engine) as conn:
            found = await conn.execute(delete(self._table).where(rowid.in_(oldest)))
        return int(found.rowcount or 0)


class SqlReplyLog:
    """Replies by (user, idempotency key) in `agent_replies`."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._log = _FirstRecorded(engine, replies, "reply", AgentReply, "replies")
        self._now = now

    async def get(self, user_id: str, key: str) -> AgentReply | None:
        """The recorded reply, if any."""
        return await self._log.get(user_id, key)

    async def put(self, user_id: str, key: str, reply: AgentReply) -> AgentReply:
        """Record; when another writer recorded the key first, return its reply instead."""
        row = {"user_id": user_id, "idempotency_key": key, "created_at": self._now()}
        return await self._log.put(row, reply) or reply

    async def prune(self, older_than: datetime, batch: int = PRUNE_BATCH) -> int:
        """Forget the replies recorded before `older_than`; how many went."""
        return await self._log.prune(older_than, batch)


class SqlTaskLog:
    """Results of DAG steps by (user, idempotency key) in `agent_task_results`."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._log = _FirstRecorded(engine, task_results, "result", TaskResult, "task log")
        self._now = now

    async def get(self, user_id: str, key: str) -> TaskResult | None:
        """The recorded result, if any."""
        return await self._log.get(user_id, key)

    async def put(self, user_id: str, key: str, call: TaskCall, result: TaskResult) -> TaskResult:
        """Record; when another writer recorded the key first, return its result (replayed)."""
        row = {
            "user_id": user_id,
            "idempotency_key": key,
            "run_id": call.run_id,
            "step_id": call.step_id,
            "created_at": self._now(),
        }
        first = await self._log.put(row, result)
        return result if first is None else first.model_copy(update={"replayed": True})

    async def prune(self, older_than: datetime, batch: int = PRUNE_BATCH) -> int:
        """Forget the results recorded before `older_than`; how many went."""
        return await self._log.prune(older_than, batch)
