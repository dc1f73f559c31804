"""`SqliteBinder`: Python values to what SQLite stores and back, by the engine's column types.

`SqliteAppender` writes and reads on a plain `sqlite3` connection, not through SQLAlchemy.
Its parameters and results go through the bind and result processors of the dialect's own
column types (ids, JSON documents, times), so what it writes reads back through SQLAlchemy as
if SQLAlchemy had written it, and what it reads is what SQLAlchemy would have read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Table
from sqlalchemy.engine import Dialect

from baton_eventstore.model import NewEvent, OutboxRow, as_utc
from baton_eventstore.row_write import RowWrite
from baton_eventstore.tables import events, outbox

EVENT_COLUMNS = ("stream_id", "version", "event_id", "type", "payload", "metadata", "recorded_at")
"""An event row's columns, in the order of `SqliteBinder.event`'s parameters."""
OUTBOX_COLUMNS = ("event_id", "subject", "body", "headers", "created_at")
"""An outbox row's columns, in the order of `SqliteBinder.outbox`'s parameters."""


class SqliteBinder:
    """Python values to what SQLite stores and back, by the dialect's own column types."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._processors: dict[tuple[Table, str], Callable[[Any], Any] | None] = {}
        self._event = [self._processor(events, name) for name in EVENT_COLUMNS]
        self._outbox = [self._processor(outbox, name) for name in OUTBOX_COLUMNS]
        self._outbox_event_id = self._result(outbox, "event_id")
        self._outbox_headers = self._result(outbox, "headers")
        self._outbox_created_at = self._result(outbox, "created_at")

    def event(self, stream_id: str, version: int, e: NewEvent, now: datetime) -> tuple[Any, ...]:
        raw = (stream_id, version, e.event_id, e.type, e.payload, e.metadata, now)
        return _apply(self._event, raw)

    def outbox(self, e: NewEvent, now: datetime) -> tuple[Any, ...]:
        assert e.publish is not None
        m = e.publish
        return _apply(self._outbox, (e.event_id, m.subject, m.body, m.headers, now))

    def row(self, row: RowWrite) -> tuple[Any, ...]:
        """The row's parameters: values then keys for an UPDATE, keys then values to insert."""
        names = (*row.key, *row.values) if row.create else (*row.values, *row.key)
        merged = {**row.values, **row.key}
        return tuple(_convert(self._processor(row.table, name), merged[name]) for name in names)

    def outbox_rows(self, found: list[tuple[Any, ...]]) -> list[OutboxRow]:
        return [
            OutboxRow(
                int(id_),
                _convert(self._outbox_event_id, event_id),
                subject,
                bytes(body),
                dict(_convert(self._outbox_headers, headers)),
                as_utc(_convert(self._outbox_created_at, created_at)),
            )
            for id_, event_id, subject, body, headers, created_at in found
        ]

    def _processor(self, table: Table, name: str) -> Callable[[Any], Any] | None:
        """The column's bind processor, made once per column (a read row's on every append)."""
        key = (table, name)
        if key not in self._processors:
            column_type = table.c[name].type.dialect_impl(self._dialect)
            self._processors[key] = column_type.bind_processor(self._dialect)
        return self._processors[key]

    def _result(self, table: Table, name: str) -> Callable[[Any], Any] | None:
        column_type = table.c[name].type.dialect_impl(self._dialect)
        return column_type.result_processor(self._dialect, None)


def _convert(processor: Callable[[Any], Any] | None, value: Any) -> Any:
    # None goes through the processor too: a JSON column stores it as `null`, as SQLAlchemy does.
    return value if processor is None else processor(value)


def _apply(
    processors: list[Callable[[Any], Any] | None], values: tuple[Any, ...]
) -> tuple[Any, ...]:
    return tuple(_convert(p, v) for p, v in zip(processors, values, strict=True))
