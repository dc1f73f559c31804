"""`is_unavailable` tells "the database is not there" from a fault of the statement or the code,
and `nothing_written` which of its failures surely wrote nothing."""

from __future__ import annotations

import socket
import sqlite3

import asyncpg
import pytest
from sqlalchemy import exc as sa_exc

from baton_eventstore import StoreUnavailable, is_unavailable, nothing_written, storage_full


def wrapped(
    orig: BaseException, kind: type[sa_exc.DBAPIError] = sa_exc.OperationalError
) -> Exception:
    return kind("SELECT 1", {}, orig)


def appender_failed(cause: BaseException) -> StoreUnavailable:
    """`StoreUnavailable` raised from `cause`, as the raw asyncpg appender raises it."""
    error = StoreUnavailable(f"append: {type(cause).__name__}: {cause}")
    error.__cause__ = cause
    return error


def raised_from(cause: BaseException) -> Exception:
    try:
        try:
            raise cause
        except BaseException as exc:
            raise RuntimeError("while loading the instance") from exc
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize(
    "error",
    [
        StoreUnavailable("PostgreSQL: gone"),
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"),
        socket.gaierror(-2, "Name or service not known"),
        # asyncio's, when every address of the host refused (found by a review: a 500).
        OSError(
            "Multiple exceptions: [Errno 111] Connect call failed ('::1', 5432, 0, 0), "
            "[Errno 111] Connect call failed ('127.0.0.1', 5432)"
        ),
        sa_exc.TimeoutError("QueuePool limit of size 5 overflow 10 reached"),
        wrapped(sqlite3.OperationalError("database is locked")),
        wrapped(sqlite3.OperationalError("unable to open database file")),
        wrapped(Exception("connection is closed"), sa_exc.InterfaceError),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.InternalClientError("cannot switch to state 11"),
        asyncpg.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        asyncpg.DiskFullError("could not extend file"),
        asyncpg.QueryCanceledError("canceling statement due to statement timeout"),
        raised_from(asyncpg.ConnectionDoesNotExistError("closed")),
    ],
    ids=lambda e: type(e).__name__,
)
def test_an_unreachable_or_broken_database_is_unavailable(error: Exception) -> None:
    assert is_unavailable(error)


def test_a_statement_on_a_connection_sqlalchemy_invalidated_is_unavailable() -> None:
    error = wrapped(Exception("server closed the connection"), sa_exc.DBAPIError)
    assert not is_unavailable(error)
    error.connection_invalidated = True
    assert is_unavailable(error)


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("a bug"),
        KeyError("steps"),
        FileNotFoundError("definitions/onboarding.yaml"),  # an OSError, not a connection's
        wrapped(sqlite3.OperationalError("no such table: events")),
        wrapped(sqlite3.OperationalError('near "SELEC": syntax error')),
        wrapped(sqlite3.IntegrityError("UNIQUE constraint failed"), sa_exc.IntegrityError),
        wrapped(sqlite3.InterfaceError("Error binding parameter 1"), sa_exc.InterfaceError),
        asyncpg.UniqueViolationError("duplicate key value"),
        asyncpg.UndefinedTableError('relation "events" does not exist'),
        raised_from(ValueError("bad payload")),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_fault_of_the_statement_or_the_code_is_not(error: Exception) -> None:
    assert not is_unavailable(error)


def test_a_cycle_of_causes_ends() -> None:
    first, second = RuntimeError("a"), RuntimeError("b")
    first.__cause__, second.__cause__ = second, first
    assert not is_unavailable(first)


@pytest.mark.parametrize(
    "error",
    [
        # A lock waited on past the statement timeout: the transaction is rolled back.
        asyncpg.QueryCanceledError("canceling statement due to statement timeout"),
        appender_failed(asyncpg.QueryCanceledError("canceling statement due to statement timeout")),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"),
        socket.gaierror(-2, "Name or service not known"),
        OSError(
            "Multiple exceptions: [Errno 111] Connect call failed ('::1', 5432, 0, 0), "
            "[Errno 111] Connect call failed ('127.0.0.1', 5432)"
        ),
        sa_exc.TimeoutError("QueuePool limit of size 5 overflow 10 reached"),
        wrapped(sqlite3.OperationalError("database is locked")),
        wrapped(sqlite3.OperationalError("attempt to write a readonly database")),
        # SQLITE_FULL: the statement's pages, or the commit's, could not be written.
        wrapped(sqlite3.OperationalError("database or disk is full")),
        appender_failed(sqlite3.OperationalError("database or disk is full")),
    ],
    ids=lambda e: f"{type(e).__name__}: {e}"[:60],
)
def test_a_statement_refused_or_never_sent_wrote_nothing(error: Exception) -> None:
    assert is_unavailable(error) and nothing_written(error)


@pytest.mark.parametrize(
    "error",
    [
        # Broken while the statement (or its COMMIT) was in flight: it may have committed.
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.AdminShutdownError("terminating connection due to administrator command"),
        ConnectionResetError(104, "Connection reset by peer"),
        wrapped(Exception("connection is closed"), sa_exc.InterfaceError),
        StoreUnavailable("PostgreSQL: gone"),
        asyncpg.DiskFullError("could not extend file"),
        wrapped(sqlite3.OperationalError("disk I/O error")),
    ],
    ids=lambda e: f"{type(e).__name__}: {e}"[:60],
)
def test_a_connection_broken_meanwhile_may_have_written(error: Exception) -> None:
    assert is_unavailable(error) and not nothing_written(error)


@pytest.mark.parametrize(
    "error",
    [
        wrapped(sqlite3.OperationalError("database or disk is full")),
        appender_failed(sqlite3.OperationalError("database or disk is full")),
        raised_from(asyncpg.DiskFullError("could not extend file")),
        OSError(28, "No space left on device"),
        OSError(122, "Disk quota exceeded"),
    ],
    ids=lambda e: f"{type(e).__name__}: {e}"[:60],
)
def test_a_full_disk_is_told_apart(error: Exception) -> None:
    assert is_unavailable(error) and storage_full(error)


@pytest.mark.parametrize(
    "error",
    [
        wrapped(sqlite3.OperationalError("database is locked")),
        wrapped(sqlite3.OperationalError("disk I/O error")),
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"),
        StoreUnavailable("PostgreSQL: gone"),
    ],
    ids=lambda e: f"{type(e).__name__}: {e}"[:60],
)
def test_other_outages_are_no_full_disk(error: Exception) -> None:
    assert not storage_full(error)


@pytest.mark.parametrize(
    ("exc", "before_sent", "closed"),
    [
        (
            asyncpg.InternalClientError(
                "cannot switch to state 12; another operation (2) is in progress"
            ),
            True,
            True,
        ),
        (asyncpg.InterfaceError("connection is closed"), True, True),
        (
            asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
            False,
            True,
        ),
        (ConnectionResetError(104, "Connection reset by peer"), False, True),
        (asyncpg.exceptions.AdminShutdownError("terminating connection"), False, True),
        # A value asyncpg cannot encode is an InterfaceError too: the statement's fault.
        (asyncpg.DataError("invalid input for query argument $1"), False, False),
        (asyncpg.InternalClientError("something else"), False, False),
        (asyncpg.exceptions.QueryCanceledError("canceling statement"), False, False),
    ],
)
def test_a_connection_the_server_closed_is_told_from_one_that_may_have_run_the_statement(
    exc: BaseException, before_sent: bool, closed: bool
) -> None:
    from baton_eventstore.unavailable import lost_before_sent, server_closed

    assert lost_before_sent(exc) is before_sent
    assert server_closed(exc) is closed


def test_a_database_that_answered_nothing_is_told_from_one_that_is_down() -> None:
    from baton_eventstore import NoAnswer, no_answer

    silent = NoAnswer("PostgreSQL: no answer in time")
    silent.__cause__ = TimeoutError()
    # Unavailable either way, and a caller can say which: it did not answer in time.
    assert is_unavailable(silent) and no_answer(silent)
    assert no_answer(raised_from(silent))
    assert not nothing_written(silent)  # the statement may have run
    assert not no_answer(appender_failed(ConnectionRefusedError(111, "Connection refused")))
    assert not no_answer(TimeoutError())  # only the store's own bound says so
