"""`DuplicateWindow`: which outbox rows the broker may no longer recognise as published.

JetStream drops a second publish of a msg id only inside the stream's duplicate window
(2 minutes on Baton's streams), counted from the first. A row is published again when its
first publish was not seen through to its delete: a crash before the delete, an
acknowledgement that never came, a relay that stalled past its lease. Most of these come
back within seconds, but not all: a restart long after a crash, or a broker away for longer
than the window, brings the row back after the window, and the copy would be stored twice.

No bound on that time is possible (a crashed service may stay down for a day), so the relay
asks instead: a row committed longer ago than half the window is looked up in the broker
before it is published, and one it holds is published already. Rows younger than that are
published as always: no first publish of theirs can be out of the window. The other half of
the window allows for clocks (the row's time is its writer's, the window the broker's).
In normal running, rows are milliseconds old, and the cost is one clock read per batch.

A relay that has just taken the lease (a restart after a crash, a replica taking over from one
that died or stalled) also asks about every row committed before it took it, however young:
its predecessor may have published them and died before deleting them. JetStream would drop
those copies from the stream, but each plain NATS subscriber of the subject would get the
event twice. The relay stops asking at the first batch the broker holds none of: its
predecessor published in order, so a backlog behind that batch costs no lookup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from baton_eventstore.model import OutboxRow
from baton_eventstore.port import Publisher, msg_id_for, outgoing


class DuplicateWindow:
    """The broker's duplicate window, `seconds` long, and the lookup for rows older than half."""

    def __init__(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError(f"duplicate_window: must be > 0 seconds, got {seconds}")
        self._old = timedelta(seconds=seconds / 2)
        self._lookback = timedelta(seconds=seconds)  # before the oldest row: clocks differ

    async def held(
        self, rows: Sequence[OutboxRow], publisher: Publisher, taken_at: datetime | None = None
    ) -> set[int]:
        """The ids of `rows` the broker holds already; only old rows are asked about, and rows
        committed before `taken_at` (when this relay took the lease from another holder)."""
        cutoff = datetime.now(UTC) - self._old
        if taken_at is not None and taken_at > cutoff:
            cutoff = taken_at
        old = [r for r in rows if r.created_at is not None and r.created_at < cutoff]
        if not old:
            return set()
        since = min(r.created_at for r in old if r.created_at is not None) - self._lookback
        found = await publisher.stored([outgoing(r) for r in old], since)
        return {r.id for r in old if msg_id_for(r.event_id) in found}
