"""SQLite engines for tests of a process's writers: no busy waiting, so every clash shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore import create_engine


def impatient_sqlite_engine(path: Path) -> AsyncEngine:
    """`create_engine` for a SQLite file, with the busy timeout at zero: a writer that meets
    another one fails at once with "database is locked" instead of sleeping until it is free."""
    engine = create_engine(f"sqlite+aiosqlite:///{path}")

    @event.listens_for(engine.sync_engine, "connect")
    def _no_busy_wait(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout=0")  # after create_engine's own pragmas
        cursor.close()

    return engine
