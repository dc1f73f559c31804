"""A request's write starts by its deadline or not at all: when that deadline falls, and what a
request whose write was still waiting for the database then is told (signals, chat turns and
every DAG write the gateway waits for say it the same way)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def write_by(timeout: float | None) -> datetime | None:
    """When a request arriving now must have begun writing (None: no bound). By the wall clock
    the store reads, not a service's clock: a test's may be fixed in the past."""
    if timeout is None:
        return None
    return datetime.now(UTC) + timedelta(seconds=timeout)


def not_written_in_time(request: str, outcome: str, again: str = "send it again") -> str:
    """What a request whose write was still waiting for the database at its deadline is told."""
    return (
        f"the workflow service's database was too busy to record this {request} before its "
        f"time ran out; {outcome}: {again}"
    )
