"""An append waiting in `AsyncpgAppender`'s queue, and how its outcome is handed over."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from baton_eventstore.model import StartByPassed
from baton_eventstore.pg_batch import Append
from baton_eventstore.unavailable import CONNECTION_LOST


@dataclass
class Waiting:
    """An append in the queue, and where its outcome goes."""

    append: Append
    outcome: asyncio.Future[list[int]] = field(repr=False)

    def succeed(self, positions: list[int]) -> None:
        """Hand the caller its positions (unless it gave up)."""
        if not self.outcome.done():
            self.outcome.set_result(positions)

    def fail(self, exc: BaseException) -> None:
        """Hand the caller its error (unless it gave up)."""
        if not self.outcome.done():
            self.outcome.set_exception(exc)


def take(queue: deque[Waiting], in_flight: set[str], max_batch: int) -> list[Waiting]:
    """The oldest waiting appends, taken off `queue`, one per stream and at most `max_batch`,
    skipping those whose caller gave up and those of a stream `in_flight`.

    A stream's append waits while an earlier one of that stream is in flight, so the
    appends of one stream are written in the order they were called.
    """
    batch: list[Waiting] = []
    streams = set(in_flight)
    left: deque[Waiting] = deque()
    while queue and len(batch) < max_batch:
        waiting = queue.popleft()
        if waiting.outcome.done():
            continue
        if waiting.append.stream_id in streams:
            left.append(waiting)
            continue
        streams.add(waiting.append.stream_id)
        batch.append(waiting)
    # Put back in front, in their order: the queue's own deque, which the appender holds.
    queue.extendleft(reversed(left))
    # In stream order: two replicas' batches that share streams then take their locks
    # (the events' unique key, the read rows) in the same order, and cannot deadlock.
    batch.sort(key=lambda waiting: waiting.append.stream_id)
    return batch


def gone(exc: BaseException) -> bool:
    """The connection is gone (every statement on it fails), not just this statement.

    asyncpg's client-side `DataError` (a value it cannot encode) is an `InterfaceError` too,
    but the connection is fine: it is the statement's fault.
    """
    return isinstance(exc, CONNECTION_LOST) and not isinstance(exc, ValueError)


def still_due(batch: list[Waiting]) -> list[Waiting]:
    """The batch less the appends whose start-by has come, which fail `StartByPassed`, unsent.
    The clock is read once, and only when an append has a start-by."""
    now: datetime | None = None
    due: list[Waiting] = []
    for waiting in batch:
        start_by = waiting.append.start_by
        if start_by is not None:
            now = now or datetime.now(UTC)
            if now >= start_by:
                waiting.fail(StartByPassed(waiting.append.stream_id, start_by))
                continue
        due.append(waiting)
    return due


async def settle(waiting: Waiting, work: Awaitable[list[int]]) -> None:
    """Run one append's write and hand its result or its error to the caller; an error that
    means the connection is gone is raised, for every append still on it."""
    try:
        result = await work
    except Exception as exc:
        if gone(exc):
            raise
        waiting.fail(exc)
        return
    waiting.succeed(result)
