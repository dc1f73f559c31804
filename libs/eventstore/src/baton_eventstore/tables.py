"""The event store's tables and its ordered migration steps."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Connection,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Uuid,
)
from sqlalchemy.dialects.postgresql import JSONB

from baton_eventstore.migrations import Step

metadata = MetaData()

# SQLite only autoincrements an INTEGER PRIMARY KEY (the rowid alias), not a BIGINT one.
Position = BigInteger().with_variant(Integer, "sqlite")
JsonDoc = JSON().with_variant(JSONB, "postgresql")

events = Table(
    "events",
    metadata,
    Column("position", Position, primary_key=True, autoincrement=True),
    Column("stream_id", String(255), nullable=False),
    Column("version", Integer, nullable=False),
    Column("event_id", Uuid, nullable=False),
    Column("type", String(255), nullable=False),
    Column("payload", JsonDoc, nullable=False),
    Column("metadata", JsonDoc, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    # The unique key, not a lock, decides which of two concurrent appends wins.
    Index("uq_events_stream_version", "stream_id", "version", unique=True),
    Index("uq_events_event_id", "event_id", unique=True),
)

outbox = Table(
    "outbox",
    metadata,
    Column("id", Position, primary_key=True, autoincrement=True),
    Column("event_id", Uuid, nullable=False),
    Column("subject", String(255), nullable=False),
    Column("body", LargeBinary, nullable=False),
    Column("headers", JsonDoc, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # Never reuse an id (PostgreSQL's bigserial does not either): a relay deletes rows by the
    # ids it published, and without AUTOINCREMENT SQLite hands the id of a deleted row to the
    # next one once the table is empty, so a relay that lost its lease deleted a new, unsent row.
    sqlite_autoincrement=True,
)

outbox_lease = Table(
    "outbox_lease",
    metadata,
    Column("name", String(255), primary_key=True),
    Column("holder", String(255), nullable=False),
    # Seconds since the epoch: plain numbers compare the same on every backend.
    Column("expires_at", Float, nullable=False),
)


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[events, outbox, outbox_lease])


def _outbox_ids_never_reused(conn: Connection) -> None:
    """SQLite: rebuild an outbox made before `sqlite_autoincrement` with it, rows kept."""
    if conn.dialect.name != "sqlite":
        return
    found = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'outbox'"
    ).scalar()
    if found is None or "AUTOINCREMENT" in str(found).upper():
        return
    columns = ", ".join(column.name for column in outbox.columns)
    conn.exec_driver_sql("ALTER TABLE outbox RENAME TO outbox_v1")
    outbox.create(conn)
    conn.exec_driver_sql(f"INSERT INTO outbox ({columns}) SELECT {columns} FROM outbox_v1")
    conn.exec_driver_sql("DROP TABLE outbox_v1")


COMPONENT = "eventstore"
STEPS: list[Step] = [_create_v1, _outbox_ids_never_reused]
