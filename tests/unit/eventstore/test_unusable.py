"""`DatabaseUnusable` names what no wait will fix; what waiting may fix is raised as it was."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import exc as sa_exc

from baton_eventstore.unusable import (
    DatabaseUnusable,
    blamed_on,
    engine_for,
    shown,
    unusable_problem,
)

SETTING = "BATON_DATABASE_URL"


def wrapped(orig: BaseException) -> Exception:
    """As SQLAlchemy raises a driver's error: the driver's is `orig` and the cause."""
    try:
        raise sa_exc.DBAPIError("SELECT 1", {}, orig) from orig  # type: ignore[arg-type]
    except sa_exc.DBAPIError as exc:
        return exc


def sqlite_error(code: int, message: str) -> sqlite3.Error:
    error = sqlite3.DatabaseError(message)
    error.sqlite_errorcode = code  # set by the sqlite3 module on the errors it raises
    return error


@pytest.mark.parametrize(
    ("error", "problem"),
    [
        (asyncpg.InvalidCatalogNameError('database "nope" does not exist'), 'database "nope"'),
        (asyncpg.InvalidPasswordError('password authentication failed for user "u"'), "password"),
        (asyncpg.InvalidAuthorizationSpecificationError('role "u" does not exist'), 'role "u"'),
        (asyncpg.InsufficientPrivilegeError("permission denied for schema public"), "permission"),
        (sqlite_error(sqlite3.SQLITE_NOTADB, "file is not a database"), "not a SQLite database"),
        (sqlite_error(sqlite3.SQLITE_READONLY, "attempt to write a readonly"), "cannot be written"),
        # An extended result code: SQLITE_CANTOPEN_ISDIR.
        (sqlite_error(sqlite3.SQLITE_CANTOPEN | (2 << 8), "unable to open"), "cannot be opened"),
    ],
    ids=lambda e: type(e).__name__ if isinstance(e, Exception) else "",
)
def test_what_no_wait_fixes_is_said_in_plain_words(error: Exception, problem: str) -> None:
    assert problem in (unusable_problem(error) or "")
    assert problem in (unusable_problem(wrapped(error)) or "")


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)"),
        socket.gaierror(-2, "Name or service not known"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        sqlite_error(sqlite3.SQLITE_BUSY, "database is locked"),
        sqlite_error(sqlite3.SQLITE_FULL, "database or disk is full"),
        ValueError("a bug, not the database"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_what_waiting_may_fix_is_not_unusable(error: Exception) -> None:
    assert unusable_problem(error) is None
    with pytest.raises(type(error)), blamed_on(SETTING, "sqlite+aiosqlite:///x.db"):
        raise error


def test_blamed_on_names_the_setting_and_hides_the_password() -> None:
    url = "postgresql+asyncpg://baton:s3cret@db:5432/baton_workflow"
    error = asyncpg.InvalidCatalogNameError('database "baton_workflow" does not exist')
    with pytest.raises(DatabaseUnusable) as raised, blamed_on(SETTING, url):
        raise wrapped(error)
    assert str(raised.value) == (
        "BATON_DATABASE_URL: cannot use postgresql+asyncpg://baton:***@db:5432/baton_workflow: "
        'database "baton_workflow" does not exist'
    )


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("mysql+aiomysql://u:pw@h/db", 'u:***@h/db: unsupported database "mysql+aiomysql"'),
        ("sqlite+nosuch:///x.db", 'unknown driver "sqlite+nosuch"'),
        ("sqlite+pysqlite:///x.db", 'driver "sqlite+pysqlite" is not an asyncio driver'),
        ("postgresql+psycopg2://u:pw@h/db", 'driver "postgresql+psycopg2" is not installed'),
        ("pw-but-no-url", "cannot use its value: it is not a database URL"),
    ],
)
def test_a_url_naming_no_usable_driver_is_refused_by_setting(url: str, said: str) -> None:
    with pytest.raises(DatabaseUnusable) as raised:
        engine_for(SETTING, url)
    message = str(raised.value)
    assert message.startswith(f"{SETTING}: cannot use ") and said in message
    assert ":pw@" not in message and "pw-but-no-url" not in message  # it may hold a password


def test_a_sqlite_file_whose_folder_cannot_be_created_is_refused(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file, not a folder")
    with pytest.raises(
        DatabaseUnusable, match="its folder .*/plain/sub cannot be created: Not a directory"
    ):
        engine_for(SETTING, f"sqlite+aiosqlite:///{tmp_path}/plain/sub/w.db")


def test_a_sqlite_file_gets_its_folder(tmp_path: Path) -> None:
    engine_for(SETTING, f"sqlite+aiosqlite:///{tmp_path}/a/b/w.db")
    engine_for(SETTING, f"sqlite+aiosqlite:///file:{tmp_path}/c/w.db?mode=rwc&uri=true")
    assert (tmp_path / "a" / "b").is_dir() and (tmp_path / "c").is_dir()
    assert not Path("file:").exists()  # not a folder named after the URI's scheme


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql+asyncpg://u:p%40ss@h/db", "postgresql+asyncpg://u:***@h/db"),
        # No password: as written, not re-rendered (which would escape `file:` as `file%3A`).
        (
            "sqlite+aiosqlite:///file:/data/x.db?mode=ro&uri=true",
            "sqlite+aiosqlite:///file:/data/x.db?mode=ro&uri=true",
        ),
        ("postgresql+asyncpg://u@h/db?ssl=require", "postgresql+asyncpg://u@h/db?ssl=require"),
    ],
)
def test_a_url_is_shown_with_its_password_hidden_and_otherwise_as_written(
    url: str, said: str
) -> None:
    assert shown(url) == said
