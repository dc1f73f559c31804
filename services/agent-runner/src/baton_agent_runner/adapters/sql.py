"""The agent-runner's own tables, their migrations, and what their stores share.

The inbox store is in `sql_inbox` (the statements it sends, in `inbox_statements`), the SQL
memory store in `sql_stores`; the reply and task logs, which use `replies`, `task_results` and
`claims`, are in `sql_logs`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
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
    inspect,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.service.ports import StoreUnavailable
from baton_eventstore import is_unavailable

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
    # The idempotency key of the turn that saved the item (NULL for items saved before step 6):
    # a retried turn counts the inbox without the items its first attempt already saved.
    Column("turn_key", String(200), nullable=True),
    # The workflow instance whose turn saved the item (NULL for items saved before step 7):
    # a deferred item of an instance that ends without its inbox step is moved in then.
    Column("instance_id", String(128), nullable=True),
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
    # What was asked (`request_digest`; NULL for replies recorded before step 8): the same key
    # with another question is refused, not answered with this reply. So is task_results'.
    Column("request_digest", String(64), nullable=True),
    # For the prune (`FirstRecorded.prune`), as is task_results'; see step 4.
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
    Column("request_digest", String(64), nullable=True),
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


def _add_turn_key_v6(conn: Connection) -> None:
    # Step 1 creates today's table, which has the column already.
    if "turn_key" in {c["name"] for c in inspect(conn).get_columns(inbox_items.name)}:
        return
    conn.execute(text(f"ALTER TABLE {inbox_items.name} ADD COLUMN turn_key VARCHAR(200)"))


def _add_instance_id_v7(conn: Connection) -> None:
    # Step 1 creates today's table, which has the column already. Items saved before it keep
    # NULL: which instance deferred them is not known, so any end of the user's instances
    # moves them in (see `SqlInboxStore.promote_deferred_of`).
    if "instance_id" in {c["name"] for c in inspect(conn).get_columns(inbox_items.name)}:
        return
    conn.execute(text(f"ALTER TABLE {inbox_items.name} ADD COLUMN instance_id VARCHAR(128)"))


def _add_request_digest_v8(conn: Connection) -> None:
    # Steps 1 and 2 create today's tables, which have the column already. Rows recorded before
    # it keep NULL: what they answered is not known, so they answer their key as before.
    for table in (replies, task_results):
        if "request_digest" in {c["name"] for c in inspect(conn).get_columns(table.name)}:
            continue
        conn.execute(text(f"ALTER TABLE {table.name} ADD COLUMN request_digest VARCHAR(64)"))


STEPS = [
    _create_v1,
    _create_v2,
    _add_announced_v3,
    _index_created_at_v4,
    _create_claims_v5,
    _add_turn_key_v6,
    _add_instance_id_v7,
    _add_request_digest_v8,
]
"""Migration steps of the agent-runner's tables; append, never edit."""

Clock = Callable[[], datetime]


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
        raise StoreUnavailable(f"{store}: {exc.__class__.__name__}: {exc}", store) from exc


def upsert(engine: AsyncEngine, table: Table) -> Any:
    """An INSERT of this database's dialect, which knows ON CONFLICT (PostgreSQL, SQLite)."""
    return (pg_insert if engine.dialect.name == "postgresql" else sqlite_insert)(table)
