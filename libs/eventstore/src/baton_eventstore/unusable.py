"""A database that waiting will not make usable: `DatabaseUnusable`, found at a service's start.

A file that is not a SQLite database, a folder that cannot be created, a PostgreSQL database
that does not exist or refuses the user: the service stops with one line naming the setting,
the database and the problem (`run_service(..., misconfigured=(DatabaseUnusable,))`). What
waiting may fix (a server that refuses connections, a locked file) is waited for at start
(`first_use`), and answered `unavailable` once the service runs (`is_unavailable`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, InvalidRequestError
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_eventstore.database_url import DATABASE_SETTING as DATABASE_SETTING
from baton_eventstore.database_url import DRIVERS, checked_url, shown, the_database
from baton_eventstore.database_url import DatabaseUnusable as DatabaseUnusable
from baton_eventstore.engine import create_engine
from baton_eventstore.migrations import SchemaTooNew
from baton_eventstore.unavailable import is_unavailable


def engine_for(
    setting: str,
    url: str,
    *,
    pool_size: int | None = None,
    statement_timeout: float | None = None,
) -> AsyncEngine:
    """`create_engine(url)`, and the folder of a SQLite file created; DatabaseUnusable, naming
    `setting`, when `url` is no database this store can use or that folder cannot be made."""
    parsed = checked_url(setting, url)
    try:
        engine = create_engine(url, pool_size=pool_size, statement_timeout=statement_timeout)
    except (ArgumentError, InvalidRequestError, ImportError) as exc:  # unknown or sync driver
        raise DatabaseUnusable(setting, shown(url), _driver_problem(parsed, exc)) from exc
    _ensure_sqlite_folder(setting, url, parsed)
    return engine


@contextmanager
def blamed_on(setting: str, url: str) -> Iterator[None]:
    """Around a service's first use of its database (migrating it): what that raises for a
    reason waiting will not fix becomes DatabaseUnusable naming `setting`; anything else is
    raised as it was."""
    try:
        yield
    except Exception as exc:
        problem = unusable_problem(exc)
        if problem is None:
            raise
        raise DatabaseUnusable(setting, shown(url), problem) from exc


FIRST_RETRY_SECONDS, LONGEST_RETRY_SECONDS = 0.2, 5.0


async def first_use(
    setting: str,
    url: str,
    work: Callable[[], Awaitable[object]],
    logger: logging.Logger,
    *,
    longest_wait: float = LONGEST_RETRY_SECONDS,
) -> None:
    """A service's first use of its database (migrating it), retried for as long as the
    database is unavailable (a server not up yet, refusing connections, starting up, a locked
    file), so that services and their database may start in any order.

    DatabaseUnusable, naming `setting`, when it can never serve (`blamed_on`); anything else
    (a bug) is raised at once. Each new reason to wait is logged once, with the database's
    URL (password hidden); a stop during the wait cancels it.
    """
    delay, said = FIRST_RETRY_SECONDS, ""
    while True:
        try:
            with blamed_on(setting, url):
                await work()
        except DatabaseUnusable:
            raise
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
            if reason != said:
                logger.warning(
                    "%s (%s) is unavailable (%s); still trying",
                    the_database(url),
                    setting,
                    reason,
                )
                said = reason
            await asyncio.sleep(delay)
            delay = min(delay * 2, longest_wait)
            continue
        if said:
            logger.info("%s is available", the_database(url))
        return


def unusable_problem(exc: BaseException) -> str | None:
    """The problem in plain words when `exc`, or what it was raised from, says the database
    cannot be used however long one waits; None otherwise."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, SchemaTooNew):
            return str(current)
        if isinstance(current, sqlite3.Error) and hasattr(current, "sqlite_errorcode"):
            return _sqlite_problem(current)
        sqlstate = getattr(current, "sqlstate", None)
        if isinstance(sqlstate, str):  # asyncpg's error, or SQLAlchemy's adapter of it
            return _postgres_problem(sqlstate, current)
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return None


# SQLite's primary result codes (the low byte of an extended one) that no wait changes.
_SQLITE_PROBLEMS = {
    sqlite3.SQLITE_NOTADB: "the file is not a SQLite database",
    sqlite3.SQLITE_CORRUPT: "the file is a damaged SQLite database",
    sqlite3.SQLITE_CANTOPEN: "the file cannot be opened or created",
    sqlite3.SQLITE_READONLY: "the file cannot be written",
    sqlite3.SQLITE_PERM: "access to the file is denied",
    sqlite3.SQLITE_AUTH: "access to the file is denied",
}


def _sqlite_problem(exc: sqlite3.Error) -> str | None:
    return _SQLITE_PROBLEMS.get(exc.sqlite_errorcode & 0xFF)


# SQLSTATE prefixes: no such database (3D), authentication refused (28), no right to create
# the tables (42501), no schema to create them in (3F), a read-only database (25006: a hot
# standby, the old primary after a failover, `default_transaction_read_only`). Waiting
# changes none of them.
_POSTGRES_UNUSABLE = ("3D", "28", "42501", "3F", "25006")


def _postgres_problem(sqlstate: str, exc: BaseException) -> str | None:
    return str(exc) if sqlstate.startswith(_POSTGRES_UNUSABLE) else None


def _driver_problem(parsed: URL, exc: Exception) -> str:
    name = parsed.drivername
    if isinstance(exc, ImportError):
        return f'driver "{name}" is not installed ({DRIVERS})'
    if isinstance(exc, InvalidRequestError):
        return f'driver "{name}" is not an asyncio driver ({DRIVERS})'
    return f'unknown driver "{name}" ({DRIVERS})'


def _ensure_sqlite_folder(setting: str, url: str, parsed: URL) -> None:
    path = _sqlite_file(parsed)
    if path is None:
        return
    if path.is_dir():
        raise DatabaseUnusable(setting, shown(url), f"{path} is a folder, not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        problem = f"its folder {path.parent} cannot be created: {exc.strerror or exc}"
        raise DatabaseUnusable(setting, shown(url), problem) from exc


def _sqlite_file(parsed: URL) -> Path | None:
    """The file of a SQLite URL; None for an in-memory database or another backend."""
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    database = parsed.database
    if parsed.query.get("uri") == "true" and database.startswith("file:"):
        # `sqlite:///file:/path?mode=ro&uri=true`: the path is between `file:` and any `?`.
        database = database.removeprefix("file:").split("?", 1)[0]
        if database in ("", ":memory:"):
            return None
    return Path(database)
