"""PostgreSQL's append in one round trip: guard, events and outbox rows in one statement."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from baton_eventstore.model import NewEvent

# The guard makes an append past the stream's head insert nothing (no version gaps); the
# unique key on (stream_id, version) still decides between concurrent appends. Outbox rows
# join on the inserted events, so they exist only if the events do.
_APPEND = text(
    """
WITH guard AS (
  SELECT 1 AS ok WHERE CAST(:expected AS integer) = 0 OR EXISTS (
    SELECT 1 FROM events WHERE stream_id = :sid AND version = CAST(:expected AS integer))
), ins AS (
  INSERT INTO events (stream_id, version, event_id, type, payload, metadata, recorded_at)
  SELECT :sid, CAST(:expected AS integer) + e.ord, e.event_id, e.type, e.payload, e.metadata, :now
  FROM guard, unnest(CAST(:ids AS uuid[]), CAST(:types AS text[]), CAST(:payloads AS jsonb[]),
                     CAST(:metas AS jsonb[]))
       WITH ORDINALITY AS e(event_id, type, payload, metadata, ord)
  ORDER BY e.ord
  RETURNING position, event_id
), ob AS (
  INSERT INTO outbox (event_id, subject, body, headers, created_at)
  SELECT o.event_id, o.subject, o.body, o.headers, :now
  FROM unnest(CAST(:o_ids AS uuid[]), CAST(:subjects AS text[]), CAST(:bodies AS bytea[]),
              CAST(:headers AS jsonb[])) WITH ORDINALITY AS o(event_id, subject, body, headers, ord)
  JOIN ins ON ins.event_id = o.event_id
  ORDER BY o.ord
)
SELECT position FROM ins ORDER BY position
"""
)


async def pg_append(
    conn: AsyncConnection,
    stream_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    now: datetime,
) -> list[int]:
    """Insert events and outbox rows; the positions, or [] when the guard refused."""
    published = [e for e in events if e.publish is not None]
    params = {
        "sid": stream_id,
        "expected": expected_version,
        "now": now,
        "ids": [e.event_id for e in events],
        "types": [e.type for e in events],
        "payloads": [json.dumps(e.payload) for e in events],
        "metas": [json.dumps(e.metadata) for e in events],
        "o_ids": [e.event_id for e in published],
        "subjects": [e.publish.subject for e in published if e.publish],
        "bodies": [e.publish.body for e in published if e.publish],
        "headers": [json.dumps(e.publish.headers) for e in published if e.publish],
    }
    return [row[0] for row in await conn.execute(_APPEND, params)]
