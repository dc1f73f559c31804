"""Telling "the database is not there" from a bug: `StoreUnavailable` and `is_unavailable`.

A service answers the first with `unavailable` (HTTP 503, try again) and the second with
`internal`. Whether a write that failed so was committed is unknown (the connection may have
dropped after the server committed), so a caller retries only what is idempotent: a command
with the same id, a start with the same idempotency key. Unless `nothing_written` says the
database refused the statement, or no connection was made: then it surely was not.
"""

from __future__ import annotations

import errno
import socket
import sqlite3
from collections.abc import Callable

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints
from sqlalchemy import exc as sa_exc


class StoreUnavailable(Exception):
    """The database could not be reached, or the connection broke during the statement."""


class NoAnswer(StoreUnavailable):
    """The database answered nothing within the client's own bound past the statement
    timeout: the server, or the network to it, hangs. Whether the statement ran is not known."""


# asyncpg, when the server or the connection is gone. `InternalClientError`: a session the
# server ended while the connection sat idle in a pool leaves the protocol stuck in its
# error-consuming state until it sees the socket close, and a statement then fails so.
# `OperatorInterventionError` (SQLSTATE class 57): shutdown, "cannot connect now", a
# statement cancelled by the server. `InsufficientResourcesError` (class 53): too many
# connections, disk full, out of memory. `ReadOnlySQLTransactionError` (25006): a server that
# takes no writes, the old primary after a failover or a standby; the connection is dropped
# (`LazyPool`, `engine.create_engine`), so the next one may reach the new primary.
ASYNCPG_BROKEN: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
    asyncpg.exceptions.ReadOnlySQLTransactionError,
)
READ_ONLY_SQLSTATE = "25006"
"""What PostgreSQL answers a write on a server, or in a session, that takes none."""
CONNECTION_LOST: tuple[type[BaseException], ...] = (*ASYNCPG_BROKEN, OSError)
"""What a statement on a raw asyncpg connection raises when the connection is gone."""

CONNECTION_LOST_SAYS = "the database connection was lost (the server closed it)"
"""How a log line or an error names a connection the server ended: a restart, a failover,
`pg_terminate_backend`, rather than asyncpg's own words for it."""


def lost_before_sent(exc: BaseException) -> bool:
    """True when `exc` says the connection was already gone before this statement was sent,
    so the server never saw it and it is safe to run again on another connection, a write
    included. asyncpg refuses to send on a connection it knows is closed (`InterfaceError:
    connection is closed`), and on one whose session the server ended while it sat idle
    but whose socket it has not yet seen close: the server's farewell left its protocol
    consuming an error (`InternalClientError: cannot switch to state N; another operation
    (2) is in progress`), and it checks that state before writing a byte."""
    if isinstance(exc, asyncpg.InternalClientError):
        return "cannot switch to state" in str(exc)
    if isinstance(exc, asyncpg.InterfaceError):
        return "connection is closed" in str(exc)
    return False


def server_closed(exc: BaseException) -> bool:
    """True when `exc` says the connection itself is gone, the server having closed it: the
    statement may or may not have been sent, or run (`lost_before_sent` tells the first).
    Only a read, or a write idempotent by design, may then run again."""
    return lost_before_sent(exc) or isinstance(
        exc,
        asyncpg.ConnectionDoesNotExistError
        | asyncpg.exceptions.AdminShutdownError
        | asyncpg.exceptions.CrashShutdownError
        | ConnectionResetError
        | BrokenPipeError,
    )


def no_answer(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from, is `NoAnswer`: a caller is told
    the database did not answer in time, not only that it is unavailable."""
    return _in_chain(exc, lambda e: isinstance(e, NoAnswer))


def connection_lost(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from (SQLAlchemy's wrapping of
    asyncpg's), says the server closed the connection (`server_closed`)."""
    return _in_chain(exc, server_closed)


_FILE_ERRORS = (
    FileNotFoundError,
    FileExistsError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)

# What SQLite reports as OperationalError but is a fault of the statement or the schema.
_SQLITE_PROGRAMMING = ("no such ", "syntax error", "has no column", "already exists")


def is_unavailable(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from, says the database is unreachable."""
    return _in_chain(exc, _says_unavailable)


def _in_chain(exc: BaseException, says: Callable[[BaseException], bool]) -> bool:
    """Whether `says` holds of `exc` or of an exception it was raised from (a driver's error
    under SQLAlchemy's, the cause or context of a wrapper), each looked at once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if says(current):
            return True
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return False


def _says_unavailable(exc: BaseException) -> bool:
    # Any OSError of the socket: refused, reset, unreachable, a name that does not resolve,
    # and the plain `OSError("Multiple exceptions: ...")` asyncio raises when every address
    # of a host refuses (`localhost` on a dual-stack machine). TimeoutError of SQLAlchemy: no
    # pooled connection came free in time.
    if isinstance(exc, StoreUnavailable | sa_exc.TimeoutError):
        return True
    if isinstance(exc, OSError):
        return not isinstance(exc, _FILE_ERRORS)  # a missing definitions file is no outage
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, sa_exc.OperationalError | sqlite3.OperationalError):
        message = str(exc).lower()
        return not any(marker in message for marker in _SQLITE_PROGRAMMING)
    if isinstance(exc, sa_exc.InterfaceError):
        # asyncpg's "connection is closed"; SQLite's is a parameter it cannot bind (a bug).
        return not isinstance(exc.orig, sqlite3.Error)
    return isinstance(exc, ASYNCPG_BROKEN)


# Refused before anything took effect: PostgreSQL's statement timeout (a lock waited on past
# it) or a cancel, which roll the transaction back (a COMMIT is cancelled only before its
# commit record is written), or a write on a server that takes none; no connection made;
# SQLite's busy timeout run out on another writer's lock, or a write to a file open read-only.
_REFUSED: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.QueryCanceledError,
    asyncpg.exceptions.ReadOnlySQLTransactionError,
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
    ConnectionRefusedError,
    socket.gaierror,
    sa_exc.TimeoutError,
)
# SQLITE_FULL too: SQLite could not write the statement's pages, or the commit's (its journal or
# WAL frames, whose commit mark comes last), so nothing of the transaction took effect, and
# the caller rolls back what it began (`SqliteAppender._call`, SQLAlchemy's session).
_SQLITE_REFUSED = (
    "database is locked",
    "database table is locked",
    "readonly database",
    "database or disk is full",
)


def storage_full(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from, says the database's disk is full:
    SQLite's SQLITE_FULL ("database or disk is full", also past its `max_page_count`),
    PostgreSQL's disk_full (53100), an OSError ENOSPC or EDQUOT. Waiting does not fix it,
    freeing space does: a caller is told so, not only "unavailable"."""
    return _in_chain(exc, _says_full)


def _says_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        return "database or disk is full" in str(exc)
    return isinstance(exc, asyncpg.exceptions.DiskFullError)


def nothing_written(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from, says the database refused the
    statement or was never reached, so nothing of the transaction was written. False for a
    connection that broke meanwhile: the server may have committed before it did."""
    return _in_chain(exc, _says_refused)


def _says_refused(exc: BaseException) -> bool:
    if isinstance(exc, _REFUSED):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        return any(marker in str(exc) for marker in _SQLITE_REFUSED)
    # asyncio's when no address of the host took the connection: raised by a connect only.
    return type(exc) is OSError and str(exc).startswith("Multiple exceptions: ")
