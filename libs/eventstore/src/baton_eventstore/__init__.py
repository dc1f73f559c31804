"""Baton's append-only event store: SQL and in-memory stores, versioned schema, outbox relay."""

from baton_eventstore.engine import autocommit, create_engine
from baton_eventstore.memory import InMemoryEventStore, MemoryTransaction
from baton_eventstore.migrations import Step, migrate, schema_version
from baton_eventstore.model import (
    RELAY_PAYLOAD_BYTES,
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    OutboxMessage,
    OutboxRow,
    RecordedEvent,
    StartByPassed,
)
from baton_eventstore.port import EventStore, Outbox, Outgoing, Publisher, Transaction
from baton_eventstore.relay import OutboxRelay
from baton_eventstore.row_write import RowConflict, RowWrite
from baton_eventstore.sql import SqlEventStore, SqlTransaction
from baton_eventstore.unavailable import (
    StoreUnavailable,
    is_unavailable,
    nothing_written,
    storage_full,
)

__all__ = [
    "RELAY_PAYLOAD_BYTES",
    "ConcurrencyConflict",
    "DuplicateEventId",
    "EventStore",
    "InMemoryEventStore",
    "MemoryTransaction",
    "NewEvent",
    "Outbox",
    "OutboxMessage",
    "OutboxRelay",
    "OutboxRow",
    "Outgoing",
    "Publisher",
    "RecordedEvent",
    "RowConflict",
    "RowWrite",
    "SqlEventStore",
    "SqlTransaction",
    "StartByPassed",
    "Step",
    "StoreUnavailable",
    "Transaction",
    "autocommit",
    "create_engine",
    "is_unavailable",
    "migrate",
    "nothing_written",
    "schema_version",
    "storage_full",
]
