"""`InMemoryEventStore`: the same semantics as the SQL store, for unit tests."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from baton_eventstore.committed import CommittedLog
from baton_eventstore.model import (
    ConcurrencyConflict,
    DuplicateEventId,
    NewEvent,
    OutboxRow,
    RecordedEvent,
    check_start_by,
    refuse_if_late,
    validate_append,
)
from baton_eventstore.port import PRUNE_LIMIT, check_load, check_prune


@dataclass
class _State:
    streams: dict[str, list[RecordedEvent]] = field(default_factory=dict)
    log: list[RecordedEvent] = field(default_factory=list)
    outbox: list[OutboxRow] = field(default_factory=list)
    event_ids: set[object] = field(default_factory=set)
    committed: CommittedLog = field(default_factory=CommittedLog)


class InMemoryEventStore:
    """Events in lists; a transaction stages its appends and applies them at commit."""

    def __init__(self) -> None:
        self._state = _State()
        self._positions = itertools.count(1)
        self._outbox_ids = itertools.count(1)
        self.outbox = MemoryOutbox(self._state)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[MemoryTransaction]:
        """Stage appends; commit them on exit (re-checking versions), drop them on error."""
        tx = MemoryTransaction(self)
        yield tx
        self._commit(tx)

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        start_by: datetime | None = None,
    ) -> list[RecordedEvent]:
        """Append in a transaction of its own; StartByPassed, nothing written, once `start_by`
        has come (nothing waits here: it is looked at as the call begins)."""
        check_start_by(start_by)
        refuse_if_late(stream_id, start_by)
        async with self.transaction() as tx:
            return await tx.append(stream_id, expected_version, events)

    async def load(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with version > after_version, in version order (the first
        `limit` of them when given)."""
        check_load(after_version, limit)
        end = None if limit is None else after_version + limit
        return list(self._state.streams.get(stream_id, [])[after_version:end])

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Committed events with position > after_position, in position order."""
        if limit < 1:
            raise ValueError(f"limit: must be >= 1, got {limit}")
        return [e for e in self._state.log if e.position > after_position][:limit]

    def version(self, stream_id: str) -> int:
        """The stream's committed version (0 when it does not exist)."""
        return len(self._state.streams.get(stream_id, []))

    def _commit(self, tx: MemoryTransaction) -> None:
        # No await from here on: the check and the writes happen as one step.
        for stream_id, (base, _) in tx.staged.items():
            if self.version(stream_id) != base:
                raise ConcurrencyConflict(stream_id, base, self.version(stream_id))
        for event in tx.all_events():
            if event.event_id in self._state.event_ids:
                raise DuplicateEventId(f"events: event id {event.event_id} is already stored")
        for stream_id, (_, staged) in tx.staged.items():
            self._state.streams.setdefault(stream_id, []).extend(staged)
        committed = sorted(tx.all_events(), key=lambda e: e.position)
        self._state.log.extend(committed)
        self._state.event_ids.update(e.event_id for e in committed)
        self._state.outbox.extend(tx.outbox)
        now = datetime.now(UTC)
        for stream_id, (base, _) in tx.staged.items():
            self._state.committed.add(
                stream_id, base, tx.new_events[stream_id], tx.outbox_ids[stream_id], now
            )

    def _next_position(self) -> int:
        return next(self._positions)

    def _next_outbox_id(self) -> int:
        return next(self._outbox_ids)


class MemoryTransaction:
    """Staged appends of one unit of work."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self._store = store
        self.staged: dict[str, tuple[int, list[RecordedEvent]]] = {}
        self.outbox: list[OutboxRow] = []
        self.new_events: dict[str, list[NewEvent]] = {}
        self.outbox_ids: dict[str, list[int | None]] = {}

    async def load(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """Committed events plus this transaction's staged ones (the first `limit`)."""
        committed = await self._store.load(stream_id, after_version, limit)
        staged = self.staged.get(stream_id, (0, []))[1]
        seen = [*committed, *(e for e in staged if e.version > after_version)]
        return seen if limit is None else seen[:limit]

    async def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        """Stage events at expected_version + 1...; ConcurrencyConflict if the stream moved."""
        validate_append(stream_id, expected_version, events)
        base, staged = self.staged.get(stream_id, (self._store.version(stream_id), []))
        actual = base + len(staged)
        if actual != expected_version:
            raise ConcurrencyConflict(stream_id, expected_version, actual)
        taken = self._store._state.event_ids | {e.event_id for e in self.all_events()}
        for index, event in enumerate(events):
            if event.event_id in taken:
                raise DuplicateEventId(f"events[{index}].event_id: {event.event_id} is stored")
        now = datetime.now(UTC)
        new = [
            self._record(stream_id, expected_version + i + 1, e, now) for i, e in enumerate(events)
        ]
        self.staged[stream_id] = (base, staged + new)
        self.new_events.setdefault(stream_id, []).extend(events)
        outbox_ids = self.outbox_ids.setdefault(stream_id, [])
        for event in events:
            outbox_ids.append(None)
            if event.publish is not None:
                message = event.publish
                row = OutboxRow(
                    self._store._next_outbox_id(),
                    event.event_id,
                    message.subject,
                    message.body,
                    dict(message.headers),
                    now,
                )
                self.outbox.append(row)
                outbox_ids[-1] = row.id
        return new

    def all_events(self) -> list[RecordedEvent]:
        """Every staged event, all streams."""
        return [e for _, staged in self.staged.values() for e in staged]

    def _record(
        self, stream_id: str, version: int, event: NewEvent, now: datetime
    ) -> RecordedEvent:
        return RecordedEvent(
            stream_id=stream_id,
            version=version,
            position=self._store._next_position(),
            event_id=event.event_id,
            type=event.type,
            payload=event.payload,
            metadata=event.metadata,
            recorded_at=now,
        )


class MemoryOutbox:
    """Outbox rows and leases (the relay's, one per DAG run), in memory."""

    def __init__(self, state: _State) -> None:
        self._state = state
        self._leases: dict[str, tuple[str, float]] = {}

    @property
    def committed(self) -> CommittedLog:
        """The appends committed to this store, for its relay."""
        return self._state.committed

    async def fetch(self, limit: int, exclude: Sequence[int] = ()) -> list[OutboxRow]:
        """The oldest `limit` rows not in `exclude`, in id order."""
        left_out = set(exclude)
        rows = [r for r in self._state.outbox if r.id not in left_out]
        return sorted(rows, key=lambda r: r.id)[:limit]

    async def delete(self, ids: Sequence[int]) -> None:
        """Forget rows that were published."""
        gone = set(ids)
        self._state.outbox[:] = [r for r in self._state.outbox if r.id not in gone]

    async def count(self) -> int:
        """Rows in the table: those waiting, and those published but not deleted yet."""
        return len(self._state.outbox)

    async def acquire_lease(self, name: str, holder: str, ttl: float) -> bool:
        """Take the lease if free, expired or ours."""
        # One process: its monotonic clock, which no step of the wall clock moves.
        now = time.monotonic()
        current = self._leases.get(name)
        if current is not None and current[0] != holder and current[1] >= now:
            return False
        self._leases[name] = (holder, now + ttl)
        return True

    async def release_lease(self, name: str, holder: str) -> None:
        """Expire the lease now if `holder` has it."""
        if self._leases.get(name, ("", 0.0))[0] == holder:
            self._leases[name] = (holder, -math.inf)

    async def prune_leases(self, prefix: str, expired_for: float, limit: int = PRUNE_LIMIT) -> int:
        """Forget up to `limit` leases named `prefix...` that expired `expired_for` seconds ago."""
        check_prune(prefix, limit)
        expired_before = time.monotonic() - expired_for
        gone = [
            name
            for name, (_, expires_at) in self._leases.items()
            if name.startswith(prefix) and expires_at < expired_before
        ][:limit]
        for name in gone:
            del self._leases[name]
        return len(gone)
