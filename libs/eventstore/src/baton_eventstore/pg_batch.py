"""PostgreSQL's batched append: the appends of several streams in one statement.

When appends arrive faster than the database answers, `AsyncpgAppender` writes the ones that
are waiting together (group commit). Each append keeps its own guard, so a stream that is
behind its expected version inserts nothing while the others go in; a unique-key violation
anywhere fails the whole statement (one implicit transaction, nothing written), and the
appender then writes each append alone, which says exactly which one conflicted.

Read rows (`RowWrite`) are grouped by shape (table, columns, insert or update): one CTE per
shape, its values as one array per column, written only for appends whose guard passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql

from baton_eventstore.model import NewEvent, json_text
from baton_eventstore.row_write import RowWrite, pg_params


@dataclass(frozen=True)
class Append:
    """One stand-alone append, as `AsyncpgAppender.append` was called."""

    stream_id: str
    expected_version: int
    events: Sequence[NewEvent]
    now: datetime
    row: RowWrite | None = None
    start_by: datetime | None = None
    """Not sent once this has come: dropped unwritten (`StartByPassed`)."""


RowShape = tuple[Table, tuple[str, ...], tuple[str, ...], bool]
"""What makes two read rows one CTE: table, key columns, value columns, insert or update."""

# `ok` holds the appends whose stream is at their expected version (or new, for version 0).
# Events of the others are not inserted, and neither are their outbox or read rows. Event
# positions come from the sequence in the order rows are inserted: by append, then by event.
# The guard is a LATERAL probe with LIMIT, one index lookup per append: as an EXISTS the
# planner may hash it, reading the whole events table once per batch when its statistics say
# the table is small (a young database, before autovacuum analyses it).
_TEMPLATE = """
WITH req AS (
  SELECT * FROM unnest(CAST($1 AS text[]), CAST($2 AS integer[]))
       WITH ORDINALITY AS r(stream_id, expected, idx)
), ok AS (
  SELECT r.idx, r.stream_id, r.expected FROM req r
  LEFT JOIN LATERAL (
    SELECT 1 AS found FROM events e
    WHERE e.stream_id = r.stream_id AND e.version = r.expected LIMIT 1
  ) head ON true
  WHERE r.expected = 0 OR head.found IS NOT NULL
), ins AS (
  INSERT INTO events (stream_id, version, event_id, type, payload, metadata, recorded_at)
  SELECT ok.stream_id, ok.expected + e.ord, e.event_id, e.type, e.payload, e.metadata, e.at
  FROM unnest(CAST($3 AS bigint[]), CAST($4 AS integer[]), CAST($5 AS uuid[]),
              CAST($6 AS text[]), CAST($7 AS jsonb[]), CAST($8 AS jsonb[]),
              CAST($9 AS timestamptz[])) AS e(idx, ord, event_id, type, payload, metadata, at)
  JOIN ok ON ok.idx = e.idx
  ORDER BY e.idx, e.ord
  RETURNING position, event_id
), ob AS (
  INSERT INTO outbox (event_id, subject, body, headers, created_at)
  SELECT o.event_id, o.subject, o.body, o.headers, o.at
  FROM unnest(CAST($10 AS uuid[]), CAST($11 AS text[]), CAST($12 AS bytea[]),
              CAST($13 AS jsonb[]), CAST($14 AS timestamptz[]))
       WITH ORDINALITY AS o(event_id, subject, body, headers, at, ord)
  JOIN ins ON ins.event_id = o.event_id
  ORDER BY o.ord
  RETURNING id, event_id
){rows}
SELECT ins.position, ins.event_id, ob.id FROM ins LEFT JOIN ob ON ob.event_id = ins.event_id
ORDER BY ins.position
"""
_FIXED_PARAMS = 14


def batch_statement(appends: Sequence[Append]) -> tuple[str, list[Any]]:
    """The statement writing every append (and its read row) and its parameters.

    It returns (position, event_id, outbox row id or NULL) for each event inserted; an append
    whose guard refused it has none.
    """
    shapes: dict[RowShape, list[tuple[int, RowWrite]]] = {}
    for index, append in enumerate(appends, start=1):
        if append.row is not None:
            shapes.setdefault(shape_of(append.row), []).append((index, append.row))
    params = _event_params(appends)
    for rows in shapes.values():
        params.append([index for index, _ in rows])
        values = [pg_params(row) for _, row in rows]
        params.extend([list(column) for column in zip(*values, strict=True)])
    return batch_sql(tuple(shapes)), params


def shape_of(row: RowWrite) -> RowShape:
    """The row's shape: rows of one shape share a CTE."""
    return (row.table, tuple(row.key), tuple(row.values), row.create)


def _event_params(appends: Sequence[Append]) -> list[Any]:
    streams, expected = [], []
    idx, ord_, ids, types, payloads, metadata, at = [], [], [], [], [], [], []
    ob_ids, subjects, bodies, headers, ob_at = [], [], [], [], []
    for index, append in enumerate(appends, start=1):
        streams.append(append.stream_id)
        expected.append(append.expected_version)
        for number, event in enumerate(append.events, start=1):
            idx.append(index)
            ord_.append(number)
            ids.append(event.event_id)
            types.append(event.type)
            payloads.append(event.payload_text)
            metadata.append(json_text(event.metadata))
            at.append(append.now)
            if event.publish is not None:
                ob_ids.append(event.event_id)
                subjects.append(event.publish.subject)
                bodies.append(event.publish.body)
                headers.append(json_text(event.publish.headers))
                ob_at.append(append.now)
    return [
        streams, expected, idx, ord_, ids, types, payloads, metadata, at,
        ob_ids, subjects, bodies, headers, ob_at,
    ]  # fmt: skip


@lru_cache(maxsize=64)
def batch_sql(shapes: tuple[RowShape, ...]) -> str:
    """The statement for a batch whose read rows have these shapes, in this order."""
    ctes, first = [], _FIXED_PARAMS + 1
    for number, shape in enumerate(shapes):
        ctes.append(_row_cte(f"rm{number}", shape, first))
        first += 1 + len(shape[1]) + len(shape[2])
    return _TEMPLATE.format(rows="".join(ctes))


def _row_cte(name: str, shape: RowShape, first: int) -> str:
    table, keys, values, create = shape
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]  # SQLAlchemy: untyped __init__
    names = (*keys, *values)
    arrays = ", ".join(
        [f"CAST(${first} AS bigint[])"]
        + [
            f"CAST(${first + 1 + i} AS {table.c[column].type.compile(dialect=dialect)}[])"
            for i, column in enumerate(names)
        ]
    )
    columns = ", ".join(names)
    source = f"unnest({arrays}) AS u(batch_idx, {columns}) JOIN ok ON ok.idx = u.batch_idx"
    if create:
        picked = ", ".join(f"u.{column}" for column in names)
        body = f"INSERT INTO {table.name} ({columns}) SELECT {picked} FROM {source}"
    else:
        sets = ", ".join(f"{column} = u.{column}" for column in values)
        where = " AND ".join(f"{table.name}.{column} = u.{column}" for column in keys)
        body = f"UPDATE {table.name} SET {sets} FROM {source} WHERE {where}"
    return f", {name} AS ({body})"
