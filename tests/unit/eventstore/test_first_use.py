"""A service's first use of its database waits while the database is unavailable, and only
then: services and their database may start in any order."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from baton_eventstore.unusable import DatabaseUnusable, first_use

URL = "postgresql+asyncpg://baton:secret@db.internal:5432/baton"


class Attempts:
    """Fails with each of `failures` in turn, then succeeds."""

    def __init__(self, *failures: Exception) -> None:
        self.failures, self.calls = list(failures), 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)


async def test_an_unavailable_database_is_waited_for_and_each_reason_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    refused = ConnectionRefusedError(111, "Connect call failed")
    work = Attempts(refused, refused, refused, sqlite3.OperationalError("database is locked"))
    logger = logging.getLogger("baton.test")
    with caplog.at_level(logging.INFO, logger="baton.test"):
        await first_use("BATON_DATABASE_URL", URL, work, logger, longest_wait=0.01)
    assert work.calls == 5
    lines = [r.getMessage() for r in caplog.records if r.name == "baton.test"]
    shown = "postgresql+asyncpg://baton:***@db.internal:5432/baton"
    assert lines == [
        f"the database at {shown} (BATON_DATABASE_URL) is unavailable "
        "(ConnectionRefusedError: [Errno 111] Connect call failed); still trying",
        f"the database at {shown} (BATON_DATABASE_URL) is unavailable "
        "(OperationalError: database is locked); still trying",
        f"the database at {shown} is available",
    ]
    assert "secret" not in caplog.text


async def test_a_database_that_can_never_serve_is_not_waited_for() -> None:
    work = Attempts(sqlite3.DatabaseError("file is not a database"))
    work.failures[0].sqlite_errorcode = sqlite3.SQLITE_NOTADB  # type: ignore[attr-defined]
    with pytest.raises(DatabaseUnusable, match="the file is not a SQLite database"):
        await first_use("BATON_DATABASE_URL", URL, work, logging.getLogger("t"))
    assert work.calls == 1


async def test_a_bug_is_raised_at_once() -> None:
    work = Attempts(KeyError("step"))
    with pytest.raises(KeyError):
        await first_use("BATON_DATABASE_URL", URL, work, logging.getLogger("t"))
    assert work.calls == 1


async def test_an_available_database_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    work = Attempts()
    with caplog.at_level(logging.DEBUG):
        await first_use("BATON_DATABASE_URL", URL, work, logging.getLogger("t"))
    assert work.calls == 1 and caplog.records == []
