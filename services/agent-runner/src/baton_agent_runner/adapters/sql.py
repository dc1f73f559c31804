"""The agent-runner's own tables and their migrations; the inbox and the SQL memory store.

The reply and task logs, which use `replies`, `task_results` and `claims`, are in `sql_logs`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    DateTime,
    Index,
    MetaData,
    String,
    Table,
    Text,
    case,
    func,
    inspect,
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
from baton_agent_runner.service.ports import Mention, StoreUnavailable
from baton_contracts.agent_api import InboxItem, MemoryFact
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


def _claims_table(metadata: MetaData, *prefixes: str) -> Table:
    return Table(
        "agent_claims",
        metadata,
        # Which log the key is of: `replies` or `tasks` (their keys are not the same kind).
        Column("log", String(16), primary_key=True),
        Column("user_id", String(256), primary_key=True),
        Column("idempotency_key", String(200), primary_key=True),
        Column("holder", String(64), nullable=False),
        Column("expires_at", DateTime(timezone=True), nullable=False),
        prefixes=list(prefixes),
    )


claims = _claims_table(MetaData())
"""A key whose model call is running in one replica (`sql_logs`): a row per call in flight."""


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


def _create_claims_v5(conn: Connection) -> None:
    # UNLOGGED on PostgreSQL: a claim only says "a call is running now", worth nothing after a
    # crash of the server (which empties such a table) or on a standby (which does not get
    # it); kept out of the WAL, taking one costs no flush to disk on every model call.
    unlogged = ["UNLOGGED"] if conn.dialect.name == "postgresql" else []
    _claims_table(MetaData(), *unlogged).create(conn, checkfirst=True)


STEPS = [_create_v1, _create_v2, _add_announced_v3, _index_created_at_v4, _create_claims_v5]
"""Migration steps of the agent-runner's tables; append, never edit."""

Clock = Callable[[], datetime]
_WORD = re.compile(r"\w+")

# The PostgreSQL statements of the hot paths (see `raw_postgres`); JSON is read as text and
# validated straight from it.
_COUNT_ITEMS = {
    False: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status <> $2",
    True: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status = $2",
}


@contextmanager
def reachable(store: str) -> Iterator[None]:
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
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(self._insert.values(rows))

    async def promote_deferred(self, user_id: str) -> int:
        """Deferred items become new ones (the brain dump started); how many did."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.status == "deferred")
        with reachable("inbox"):
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
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = (await conn.execute(promote)).all()
        ordered = sorted(found, key=lambda row: (row.created_at, row.item_id))
        return [Mention(item_id=row.item_id, content=row.content) for row in ordered]

    async def mark_announced(self, user_id: str, item_ids: list[str]) -> None:
        """These items were told to the user: no later turn mentions them again."""
        if not item_ids:
            return
        told = (inbox_items.c.user_id == user_id) & inbox_items.c.item_id.in_(item_ids)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(update(inbox_items).where(told).values(announced=True))

    async def count(self, user_id: str, status: str | None) -> int:
        """Items with `status`; None counts every item that is not deferred."""
        if raw_postgres.is_postgres(self._engine):
            with reachable("inbox"):
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
        with reachable("inbox"):
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
        with reachable("inbox"):
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
        with reachable("memory"):
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
        with reachable("memory"):
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
        with reachable("memory"):
            async with self._engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        return [MemoryFact(category=row.category, key=row.key, text=row.text) for row in rows]


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}
