"""A request's write starts by its deadline or not at all: when that deadline falls, and what a
request whose write was still waiting for the database then is told (signals, chat turns and
every DAG write the gateway waits for say it the same way)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

ANSWER_MARGIN = 0.25
"""Seconds kept before a caller's deadline for what follows a write that ended in time: the
rest of the handler and the answer's way back over NATS to the caller."""


def write_by(timeout: float | None) -> datetime | None:
    """When a request arriving now must have begun writing (None: no bound). By the wall clock
    the store reads, not a service's clock: a test's may be fixed in the past."""
    if timeout is None:
        return None
    return datetime.now(UTC) + timedelta(seconds=timeout)


def _unknown() -> datetime | None:
    return None


@dataclass(frozen=True)
class WriteTime:
    """When a DAG request that writes must have begun writing: by `timeout` from its arrival
    here, and early enough for its answer to reach its caller by the caller's `deadline` (a
    chat turn, timed by its own settings, reads the caller's part alone: `caller_start_by`).

    Counted from the arrival alone, any time the request spent before its handler ran (a
    paused or starved process, a blocked event loop, a queue of requests) was left out, and
    a write began after its caller had stopped waiting and answered 503."""

    timeout: float | None = None
    """Seconds from the arrival (`BATON_WORKFLOW_DAG_WRITE_TIMEOUT_SECONDS`); None: no bound."""
    lasts: float = 0.0
    """The longest a write that has begun may take: the database's statement timeout."""
    caller_now: Callable[[], datetime | None] = _unknown
    """The caller's clock as the request's arrival tells it (`baton_messaging.caller_now`)."""

    def start_by(self, deadline: datetime | None) -> datetime | None:
        """When a request arriving now with the caller's `deadline` (None: the caller sent
        none) must have begun writing, on the wall clock the store reads (None: no bound):
        by `timeout` from now, and by `caller_start_by`."""
        bounds = [write_by(self.timeout), self.caller_start_by(deadline)]
        return min((b for b in bounds if b is not None), default=None)

    def caller_start_by(self, deadline: datetime | None) -> datetime | None:
        """When a write must begin for its answer to reach the caller by its `deadline`, on
        the wall clock the store reads (None: the caller sent no deadline).

        The deadline, less `lasts` and `ANSWER_MARGIN`, is read on the caller's clock two
        ways, and the earlier end wins. As this host's wall clock: what counts the time before
        the request reached this process (it was waiting in NATS or in the socket while the
        process was paused), on hosts whose clocks agree. And as the caller's reading at the
        send plus the time since the arrival (`caller_now`): what no difference between the
        hosts' clocks moves, but that starts at the arrival."""
        if deadline is None:
            return None
        last = deadline - timedelta(seconds=self.lasts + ANSWER_MARGIN)
        sender = self.caller_now()
        if sender is None:
            return last
        return min(last, datetime.now(UTC) + (last - sender))


def not_written_in_time(request: str, outcome: str, again: str = "send it again") -> str:
    """What a request whose write was still waiting for the database at its deadline is told."""
    return (
        f"the workflow service's database was too busy to record this {request} before its "
        f"time ran out; {outcome}: {again}"
    )
