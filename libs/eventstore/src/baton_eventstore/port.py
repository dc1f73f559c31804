"""The ports: `EventStore`, its unit of work, and the outbox a relay drains."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import NamedTuple, Protocol
from uuid import UUID

from baton_eventstore.committed import CommittedLog
from baton_eventstore.model import NewEvent, OutboxRow, RecordedEvent

PRUNE_LIMIT = 5_000
"""The most leases one `prune_leases` deletes: one short statement, on SQLite one short hold
of the write lock every other writer of the process waits for."""


def check_prune(prefix: str, limit: int) -> None:
    """`prune_leases`' arguments, refused with the argument named: an empty prefix would reach
    other components' leases."""
    if not prefix:
        raise ValueError("prefix: must not be empty (it would match every lease)")
    if limit < 1:
        raise ValueError(f"limit: must be at least 1, not {limit}")


def check_load(after_version: int, limit: int | None) -> None:
    """`load`'s arguments, refused with the argument named."""
    if after_version < 0:
        raise ValueError(f"after_version: must be >= 0, got {after_version}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit: must be at least 1, not {limit}")


class Transaction(Protocol):
    """One unit of work: appends and loads that commit (or roll back) together."""

    async def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        """Append events at expected_version + 1...; raise ConcurrencyConflict if stale."""
        ...

    async def load(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with version > after_version, as this transaction sees them
        (the first `limit` of them when given)."""
        ...


class EventStore(Protocol):
    """An append-only log of event streams with a global order."""

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        start_by: datetime | None = None,
    ) -> list[RecordedEvent]:
        """Append in a transaction of its own (see `Transaction.append`). With `start_by`
        (timezone-aware), an append still waiting to start then (for a writer, a lock) is
        dropped: StartByPassed, nothing written; one already sent is never cut off."""
        ...

    async def load(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with version > after_version, in version order (the first
        `limit` of them when given: a page of a long stream is read, not the whole rest)."""
        ...

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to `limit` committed events with position > after_position, in position order."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """A unit of work: commit on exit, roll back on error."""
        ...


class Outbox(Protocol):
    """The outbox rows of one store, and the lease that lets one relay publish them."""

    @property
    def committed(self) -> CommittedLog | None:
        """The appends this process committed through the store, with their outbox rows, for
        a relay to publish without fetching them; None when the store does not keep them."""
        ...

    async def fetch(self, limit: int, exclude: Sequence[int] = ()) -> list[OutboxRow]:
        """The oldest `limit` rows in id (= commit) order, leaving out the `exclude` ids (rows
        a relay published and has not deleted yet)."""
        ...

    async def delete(self, ids: Sequence[int]) -> None:
        """Forget rows that were published."""
        ...

    async def acquire_lease(self, name: str, holder: str, ttl: float) -> bool:
        """Take or renew the lease `name` for `ttl` seconds; False when another holder has it.

        One clock sets and checks every expiry, whichever replica takes or asks (on
        PostgreSQL the server's): replicas' clocks that differ, or jump, neither hand a held
        lease to a second replica nor keep a dead holder's for longer than `ttl`."""
        ...

    async def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up now (if `holder` has it), so a replica can take over at once."""
        ...

    async def prune_leases(self, prefix: str, expired_for: float, limit: int = PRUNE_LIMIT) -> int:
        """Delete up to `limit` leases whose name starts with `prefix` (a plain string, not a
        pattern) and that expired more than `expired_for` seconds ago, by the clock that times
        the leases (the database server's on PostgreSQL); how many were deleted. The limit
        keeps one call short however long the backlog (a first prune after an upgrade): call
        it again later for the rest.

        Safe whenever it runs: an expired lease is taken exactly as a missing one is. A
        component that names a lease per item (a DAG run) calls it, or the table keeps a row
        per item forever. An empty prefix is refused: it would reach other components' leases.
        """
        ...


class Outgoing(NamedTuple):
    """One message for the broker: an outbox row as it is published."""

    subject: str
    body: bytes
    msg_id: str
    headers: Mapping[str, str]


class Publisher(Protocol):
    """Publishes messages in order; `baton_messaging.publisher.JetStreamPublisher` fits."""

    async def publish_all(
        self, messages: Sequence[Outgoing], acknowledged: Callable[[int], object]
    ) -> None:
        """Publish `messages` in order, each sent without waiting for the previous one's
        acknowledgement; call `acknowledged(i)` as message `i` is acknowledged, in order.

        Raise at the first message that is not acknowledged, and acknowledge none after it
        (those sent after it may or may not be in the broker).
        """
        ...

    async def stored(self, messages: Sequence[Outgoing], since: datetime) -> set[str]:
        """The msg ids of `messages` the broker holds, looking at what it stored from `since`
        on: the relay asks before publishing a row again whose first publish may lie further
        back than the broker's duplicate window, which would no longer drop the copy."""
        ...


def msg_id_for(event_id: UUID) -> str:
    """The Nats-Msg-Id of an event's outbox message."""
    return str(event_id)


def outgoing(row: OutboxRow) -> Outgoing:
    """An outbox row as it is published, its msg id the event id."""
    return Outgoing(row.subject, row.body, msg_id_for(row.event_id), row.headers)
