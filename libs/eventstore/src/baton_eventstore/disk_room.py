"""Whether a SQLite database's disk has room: a health check of its own.

A full disk fails every write ("database or disk is full", answered 507 `storage_full`) while
the database still answers, and even takes the health probe's write, which is rolled back
before SQLite writes a page (`database_answers`). A service's health said nothing of it.
Waiting or a restart does not make room, so this check does not decide `healthy` (an
orchestrator restarting every replica would stop the reads too); it is reported beside it,
as the relay's `events_published` is, for an operator to alert on.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from sqlalchemy.ext.asyncio import AsyncEngine

MIN_FREE_BYTES = 1 << 20
"""Below this much free space a SQLite disk counts as full: a few pages and a WAL frame or
two, no more, and the same mark `baton up` waits for before it restarts a NATS whose store
filled its disk."""

CHECK = "disk_has_room"
"""The check's name in a service's health (`GET /api/services`)."""


class DiskUsage(NamedTuple):
    """What `shutil.disk_usage` returns, for a test to give its own."""

    total: int
    used: int
    free: int


def disk_has_room(
    engine: AsyncEngine,
    min_free: int = MIN_FREE_BYTES,
    usage: Callable[[Path], DiskUsage] | None = None,
) -> bool | None:
    """Whether the disk of `engine`'s SQLite file has `min_free` bytes free (`usage`:
    `shutil.disk_usage` unless a test gives its own). None where the check does not apply:
    PostgreSQL (its server watches its own disk, and a full one is its own error,
    `storage_full`, on every write), an in-memory database, or a folder that cannot be read
    (the `database` check fails then)."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    try:
        free = (usage or shutil.disk_usage)(Path(database).absolute().parent).free
    except OSError:
        return None
    return free >= min_free


def with_disk_room(checks: dict[str, bool], engine: AsyncEngine) -> dict[str, bool]:
    """`checks` with `disk_has_room` beside them, where it applies."""
    room = disk_has_room(engine)
    return checks if room is None else {**checks, CHECK: room}
