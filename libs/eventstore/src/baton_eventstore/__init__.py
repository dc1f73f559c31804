"""Baton's append-only event store: SQL and in-memory stores, versioned schema, outbox relay.

Each name is imported from its module when first used, not with the package: a service's
settings import `baton_eventstore.pool` before the service checks them, and that must not
import SQLAlchemy (a bad setting is said before the service's heavy imports).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baton_eventstore.disk_room import disk_has_room, with_disk_room
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
        NoAnswer,
        StoreUnavailable,
        is_unavailable,
        no_answer,
        nothing_written,
        storage_full,
    )

_MODULE_OF = {
    "RELAY_PAYLOAD_BYTES": "model",
    "ConcurrencyConflict": "model",
    "DuplicateEventId": "model",
    "EventStore": "port",
    "InMemoryEventStore": "memory",
    "MemoryTransaction": "memory",
    "NewEvent": "model",
    "NoAnswer": "unavailable",
    "Outbox": "port",
    "OutboxMessage": "model",
    "OutboxRelay": "relay",
    "OutboxRow": "model",
    "Outgoing": "port",
    "Publisher": "port",
    "RecordedEvent": "model",
    "RowConflict": "row_write",
    "RowWrite": "row_write",
    "SqlEventStore": "sql",
    "SqlTransaction": "sql",
    "StartByPassed": "model",
    "Step": "migrations",
    "StoreUnavailable": "unavailable",
    "Transaction": "port",
    "autocommit": "engine",
    "create_engine": "engine",
    "disk_has_room": "disk_room",
    "is_unavailable": "unavailable",
    "migrate": "migrations",
    "no_answer": "unavailable",
    "nothing_written": "unavailable",
    "schema_version": "migrations",
    "storage_full": "unavailable",
    "with_disk_room": "disk_room",
}

__all__ = [
    "RELAY_PAYLOAD_BYTES",
    "ConcurrencyConflict",
    "DuplicateEventId",
    "EventStore",
    "InMemoryEventStore",
    "MemoryTransaction",
    "NewEvent",
    "NoAnswer",
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
    "disk_has_room",
    "is_unavailable",
    "migrate",
    "no_answer",
    "nothing_written",
    "schema_version",
    "storage_full",
    "with_disk_room",
]


def __getattr__(name: str) -> Any:
    """The public `name`, imported from its module on first use."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
