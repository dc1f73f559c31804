"""PostgreSQL's append in one round trip: guard, events and outbox rows in one statement.

The statement is plain SQL with `$n` parameters, so the same text runs on a SQLAlchemy
connection inside a unit of work (`pg_append`) and on a raw asyncpg connection for a
stand-alone append (`AsyncpgAppender`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from baton_eventstore.model import NewEvent, json_text
from baton_eventstore.row_write import RowWrite, pg_cte, pg_params

# The guard makes an append past the stream's head insert nothing (no version gaps); the
# unique key on (stream_id, version) still decides between concurrent appends. Outbox rows
# join on the inserted events, so they exist only if the events do. One statement is one
# implicit transaction: either every row is written or none is. `{extra}` is where a read
# row's CTE goes (`append_sql`). Each event comes back with its position and its outbox row's
# id (NULL when it is not published), in event order.
_TEMPLATE = """
WITH guard AS (
  SELECT 1 AS ok WHERE CAST($2 AS integer) = 0 OR EXISTS (
    SELECT 1 FROM events WHERE stream_id = $1 AND version = CAST($2 AS integer))
), ins AS (
  INSERT INTO events (stream_id, version, event_id, type, payload, metadata, recorded_at)
  SELECT $1, CAST($2 AS integer) + e.ord, e.event_id, e.type, e.payload, e.metadata,
         CAST($3 AS timestamptz)
  FROM guard, unnest(CAST($4 AS uuid[]), CAST($5 AS text[]), CAST($6 AS jsonb[]),
                     CAST($7 AS jsonb[]))
       WITH ORDINALITY AS e(event_id, type, payload, metadata, ord)
  ORDER BY e.ord
  RETURNING position, event_id
), ob AS (
  INSERT INTO outbox (event_id, subject, body, headers, created_at)
  SELECT o.event_id, o.subject, o.body, o.headers, CAST($3 AS timestamptz)
  FROM unnest(CAST($8 AS uuid[]), CAST($9 AS text[]), CAST($10 AS bytea[]),
              CAST($11 AS jsonb[])) WITH ORDINALITY AS o(event_id, subject, body, headers, ord)
  JOIN ins ON ins.event_id = o.event_id
  ORDER BY o.ord
  RETURNING id, event_id
){extra}
SELECT ins.position, ob.id FROM ins LEFT JOIN ob ON ob.event_id = ins.event_id
ORDER BY ins.position
"""
APPEND_SQL = _TEMPLATE.format(extra="")
APPEND_PARAMS = 11
"""APPEND_SQL's parameter count; a read row's CTE numbers its own from APPEND_PARAMS + 1."""

HEAD_SQL = "SELECT COALESCE(MAX(version), 0) FROM events WHERE stream_id = $1"

# The unique index whose violation means "this event id is already stored" (tables.py).
EVENT_ID_INDEX = "uq_events_event_id"


def append_params(
    stream_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    now: datetime,
    row: RowWrite | None = None,
) -> tuple[Any, ...]:
    """`append_sql(row)`'s parameters, in `$n` order; JSON documents go as text."""
    published = [(e, e.publish) for e in events if e.publish is not None]
    extra = () if row is None else tuple(pg_params(row))
    return (
        stream_id,
        expected_version,
        now,
        [e.event_id for e in events],
        [e.type for e in events],
        [e.payload_text for e in events],
        [json_text(e.metadata) for e in events],
        [e.event_id for e, _ in published],
        [m.subject for _, m in published],
        [m.body for _, m in published],
        [json_text(m.headers) for _, m in published],
        *extra,
    )


def append_sql(row: RowWrite | None) -> str:
    """APPEND_SQL, with the read row as one more CTE when there is one."""
    return APPEND_SQL if row is None else _TEMPLATE.format(extra=pg_cte(row, APPEND_PARAMS + 1))


async def pg_append(
    conn: AsyncConnection,
    stream_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    now: datetime,
) -> list[int]:
    """Insert events and outbox rows in the connection's transaction; [] if the guard refused."""
    params = append_params(stream_id, expected_version, events, now)
    return [row[0] for row in await conn.exec_driver_sql(APPEND_SQL, params)]
