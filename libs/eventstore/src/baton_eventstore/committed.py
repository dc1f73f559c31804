"""`CommittedLog`: the appends this process committed, handed to its relay without a read.

Without it, every commit was followed by the relay reading its outbox rows back from the
database (a round trip, and on PostgreSQL a statement) only to learn what the appender knew
already. The log gives the relay those rows; what may not be in it (rows other processes or a
unit of work wrote, entries dropped when the log was full) the relay still fetches. See
`OutboxRelay` for when it may publish from the log without breaking a stream's order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from baton_eventstore.model import NewEvent, OutboxRow

DEFAULT_CAPACITY = 4096
"""Appends the log keeps for a relay that has not taken them yet; older ones are dropped."""


@dataclass(frozen=True, slots=True)
class CommittedAppend:
    """One committed append: its stream went from `expected_version` to `version`."""

    stream_id: str
    expected_version: int
    version: int
    rows: tuple[OutboxRow, ...]
    """Its outbox rows, in event order (none when no event was to be published)."""


class CommittedLog:
    """Committed appends in commit order, kept only while a relay listens, at most `capacity`.

    Losing entries is safe: a relay publishes from the log only appends that continue a
    stream it has published up to, and fetches the rest. So a full log drops its oldest.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity: must be >= 1, got {capacity}")
        self._entries: deque[CommittedAppend] = deque(maxlen=capacity)
        self._listeners = 0

    def listen(self) -> None:
        """A relay starts taking entries: record from now on."""
        self._listeners += 1

    def stop_listening(self) -> None:
        """A relay stopped; with none left, record nothing and forget what is kept."""
        self._listeners = max(self._listeners - 1, 0)
        if not self._listeners:
            self._entries.clear()

    def add(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        outbox_ids: Sequence[int | None],
        created_at: datetime | None = None,
    ) -> None:
        """Record a committed append; `outbox_ids[i]` is the outbox row of `events[i]`, and
        `created_at` the time its rows were written with."""
        if not self._listeners:
            return
        rows = []
        for event, row_id in zip(events, outbox_ids, strict=True):
            message = event.publish
            if message is None:
                continue
            if row_id is None:  # not knowing a row, the relay must read them all back
                return
            rows.append(
                OutboxRow(
                    row_id,
                    event.event_id,
                    message.subject,
                    message.body,
                    message.headers,
                    created_at,
                )
            )
        self._entries.append(
            CommittedAppend(
                stream_id, expected_version, expected_version + len(events), tuple(rows)
            )
        )

    def take(self) -> list[CommittedAppend]:
        """Everything recorded since the last take, oldest first."""
        taken = list(self._entries)
        self._entries.clear()
        return taken

    @property
    def capacity(self) -> int:
        """How many appends the log keeps at most."""
        assert self._entries.maxlen is not None
        return self._entries.maxlen

    @property
    def waiting(self) -> int:
        """Appends recorded and not taken yet. (No `__len__`: an empty log is still a log, and
        `if store.outbox.committed:` must not read it as "no log".)"""
        return len(self._entries)
