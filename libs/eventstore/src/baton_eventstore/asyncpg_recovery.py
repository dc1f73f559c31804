"""The recovery of an append cut off by a lost connection (`recover`), for `AsyncpgAppender`.

An append whose connection the server closed after its statement was sent (a restart, a
failover, `pg_terminate_backend`) may or may not have committed. It is not failed at once:
on a new connection its event ids are looked up (`recover`). Stored as it wrote them, it
committed, and its caller gets its positions; with nothing of it stored it is written once
more. It fails, `StoreUnavailable` (a 503), only when something else is stored under its ids,
or when the database cannot be reached to find out: the look-up is tried again for up to
`LOOKUP_PATIENCE` seconds (never past the append's start-by), so that a quick restart, which
refuses connections or says it is shutting down or starting up for a moment, is ridden out;
past that it fails as the cut did, never as the refused look-up did ("nothing written" would
be untrue of an append whose commit took effect: `_looked_up`).
The event ids' unique key keeps a second write from storing it twice, whatever became of the
first. None of this costs a round trip while no connection is lost.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any, Protocol

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints

from baton_eventstore.asyncpg_waiting import Waiting, settle
from baton_eventstore.model import ConcurrencyConflict, DuplicateEventId
from baton_eventstore.pg_batch import Append
from baton_eventstore.row_write import RowConflict
from baton_eventstore.unavailable import CONNECTION_LOST_SAYS, StoreUnavailable, server_closed

# The appender's logger, as before these were split out of it: whoever watches or filters
# the appender's warnings by logger name still sees the recovery's.
log = logging.getLogger("baton_eventstore.asyncpg_append")

LOOKUP_PATIENCE = 2.0
"""Seconds a cut-off append's look-up is tried again while the database cannot be reached.
Its connection was cut as the server shut down, so the look-up comes at once, while the
server refuses connections or says it is shutting down or starting up (`CannotConnectNowError`);
a quick restart is over within this, a longer outage still fails the append, a little later."""
FIRST_LOOKUP_PAUSE = 0.1
"""The pause before the look-up's second try; each later pause is twice the one before."""

STORED_SQL = (
    "SELECT stream_id, version, event_id, position FROM events "
    "WHERE event_id = ANY(CAST($1 AS uuid[]))"
)
"""The events stored under some event ids, in any stream: what an append cut off left."""


class Fetch(Protocol):
    """`AsyncpgAppender.fetch`: one statement on the appender's pool."""

    def __call__(
        self, sql: str, *args: Any, repeatable: bool = False
    ) -> Awaitable[list[asyncpg.Record]]: ...


async def recover_batch(
    fetch: Fetch,
    batch: list[Waiting],
    exc: StoreUnavailable,
    alone: Callable[[Append], Awaitable[list[int]]],
) -> None:
    """After `exc`: raised again unless the server closed the connection. Then each append
    of the batch still unsettled was cut off, and may have committed: `recover` finds
    out for each alone, on a new connection, and one not committed is written again alone
    (`alone`, as `_write_batch` writes them when the statement refused one): each gets its
    own outcome."""
    if not server_closed(exc.__cause__ or exc):
        raise exc
    until = time.monotonic() + LOOKUP_PATIENCE  # for the batch, not each of its appends
    for waiting in batch:
        if not waiting.outcome.done():
            append = waiting.append
            again = partial(alone, append)
            await settle(waiting, recover(fetch, append, exc, again, until))


async def recover(
    fetch: Fetch,
    append: Append,
    cut: StoreUnavailable,
    again: Callable[[], Awaitable[list[int]]],
    until: float | None = None,
) -> list[int]:
    """The outcome of an append whose connection the server closed (a restart, a failover)
    before its answer came, so that it may or may not have committed, found out on a new
    connection (`fetch`). Its events stored as it wrote them (its stream, the versions after
    `expected_version`, in order): it committed, and their positions are its answer. Nothing
    of it stored: it never did, and it is written once more (`again`), that write's outcome
    being its answer; a write again refused because its events are there after all (the
    cut statement was still running) is answered as committed too. Anything else stored
    under its event ids (a part of them, another stream or version) fails it,
    `StoreUnavailable` as before, saying so: neither written again nor answered committed.

    An append answered as committed so is not put in the relay's log (`committed`): the
    relay may have fetched, published and deleted its outbox row meanwhile, and a row
    published from the log after that would go out twice. Not logged, it is published by
    a fetch, which takes each row once, in commit order (`OutboxRelay`).

    The look-up is tried again while the database cannot be reached, until `until`
    (`time.monotonic()`; `LOOKUP_PATIENCE` from now when not given) or the append's
    start-by, whichever comes first (`stored`)."""
    until = time.monotonic() + LOOKUP_PATIENCE if until is None else until
    found = await _looked_up(fetch, append, cut, until)
    if not found:
        start_by = append.start_by
        if start_by is not None and datetime.now(UTC) >= start_by:
            # Not StartByPassed ("nothing recorded"): the cut statement may yet commit.
            raise StoreUnavailable(
                f"{cut}; nothing of the append is stored, and it is not sent again: "
                f"its start-by ({start_by.isoformat()}) has come"
            ) from cut
        log.warning("%s; nothing of the append was stored: written again (%s)",
                    CONNECTION_LOST_SAYS, cut)  # fmt: skip
        try:
            return await again()
        except (ConcurrencyConflict, DuplicateEventId, RowConflict):
            found = await _looked_up(fetch, append, cut, until)
            if not found:
                raise
    positions = _as_written(append, found)
    if positions is None:
        raise StoreUnavailable(
            f"{cut}; its event ids are stored, but not as this append wrote them "
            f"({_describe(append, found)}): not written again"
        ) from cut
    log.warning("%s; the append had been committed: answered as committed (%s)",
                CONNECTION_LOST_SAYS, cut)  # fmt: skip
    return positions


async def _looked_up(
    fetch: Fetch, append: Append, cut: StoreUnavailable, until: float
) -> list[asyncpg.Record]:
    """`stored`; when the database cannot be reached to tell, `StoreUnavailable` raised from
    `cut`, not from the look-up's own error. A refused connection says nothing was written
    (`nothing_written`), which is true of the look-up only: the append it asks about may
    have committed, and a caller told "nothing was recorded" (the workflow service's 503)
    would believe it."""
    try:
        return await stored(fetch, append, until)
    except StoreUnavailable as exc:
        raise StoreUnavailable(
            f"{cut}; whether the append was committed could not be looked up: {exc}"
        ) from cut


async def stored(fetch: Fetch, append: Append, until: float) -> list[asyncpg.Record]:
    """The stored events with the append's event ids (stream, version, id, position).

    A look-up the database could not answer (`StoreUnavailable`: a read, safe to run again)
    is tried again after a pause, each twice the one before, while the pause ends before
    `until` (`time.monotonic()`) and the append's start-by; else its error is raised."""
    ids = [event.event_id for event in append.events]
    pause = FIRST_LOOKUP_PAUSE
    while True:
        try:
            return await fetch(STORED_SQL, ids, repeatable=True)
        except StoreUnavailable as exc:
            if _seconds_left(until, append.start_by) < pause:
                raise
            log.warning("the database could not be reached to look a cut-off append up"
                        " (%s); trying again in %.1f s", exc, pause)  # fmt: skip
        await asyncio.sleep(pause)
        pause *= 2


def _as_written(append: Append, stored: Sequence[asyncpg.Record]) -> list[int] | None:
    """The positions of the append's events when `stored` holds exactly them, each in the
    append's stream at the version it would have given it; None otherwise."""
    by_id = {row["event_id"]: row for row in stored}
    positions: list[int] = []
    for offset, event in enumerate(append.events, start=1):
        row = by_id.get(event.event_id)
        if row is None or row["stream_id"] != append.stream_id:
            return None
        if row["version"] != append.expected_version + offset:
            return None
        positions.append(row["position"])
    return positions if len(stored) == len(append.events) else None


def _seconds_left(until: float, start_by: datetime | None) -> float:
    """Seconds until `until` (`time.monotonic()`), or until `start_by` if that comes first."""
    left = until - time.monotonic()
    if start_by is not None:
        left = min(left, (start_by - datetime.now(UTC)).total_seconds())
    return left


def _describe(append: Append, stored: Sequence[asyncpg.Record]) -> str:
    """What is stored of an append's events against what it would have written, for an error."""
    wanted = f"{len(append.events)} event(s) at {append.stream_id!r} v{append.expected_version + 1}"
    found = ", ".join(f"{row['stream_id']!r} v{row['version']}" for row in stored[:5])
    more = f" and {len(stored) - 5} more" if len(stored) > 5 else ""
    return f"{len(stored)} of them found at {found}{more}; it wrote {wanted}"
