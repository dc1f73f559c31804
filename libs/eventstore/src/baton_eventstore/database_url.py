"""The database URL a setting names: checked for its form, shown with its password hidden.

Apart from `unusable.py` (which opens the database) so that a service can check the URL with
its other settings, before it imports what it runs on: only SQLAlchemy's URL parser is needed.
"""

from __future__ import annotations

from sqlalchemy.engine.url import URL, make_url
from sqlalchemy.exc import ArgumentError

DRIVERS = "sqlite+aiosqlite or postgresql+asyncpg"

DATABASE_SETTING = "BATON_DATABASE_URL"
"""The variable every service reads its database URL from, named when it cannot be used."""


class DatabaseUnusable(Exception):
    """The database a setting names cannot be used, for a reason waiting will not fix."""

    def __init__(self, setting: str, database: str, problem: str) -> None:
        super().__init__(f"{setting}: cannot use {database}: {problem}")
        self.setting = setting
        self.database = database
        """The URL with its password hidden."""
        self.problem = problem


def shown(url: str) -> str:
    """`url` as it may be printed: its password hidden, or nothing of it when it is no URL."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "its value"  # it may hold a password that could not be found in it
    secret_keys = _SECRET_QUERY_KEYS.intersection(parsed.query)
    # Without a password, as the operator wrote it: rendering escapes a SQLite `file:` URI.
    if parsed.password is None and not secret_keys:
        return url
    if secret_keys:  # `?password=...`: asyncpg takes it as the password (and `sslpassword`)
        query = {k: ("***" if k in secret_keys else v) for k, v in parsed.query.items()}
        parsed = parsed.set(query=query)
    return parsed.render_as_string(hide_password=True).replace("%2A%2A%2A", "***")


_SECRET_QUERY_KEYS = frozenset({"password", "sslpassword"})
"""Query parameters of a database URL that hold a secret."""


def the_database(url: str) -> str:
    """`the database at <url>` (password hidden): what a service waiting for it names."""
    return f"the database at {shown(url)}"


def checked_url(setting: str, url: str) -> URL:
    """`url` parsed; DatabaseUnusable, naming `setting`, when it is no database URL or names
    a database this store does not run on."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseUnusable(
            setting, shown(url), f"it is not a database URL ({DRIVERS})"
        ) from None
    if not parsed.drivername.startswith(("sqlite", "postgres")):
        raise DatabaseUnusable(
            setting, shown(url), f'unsupported database "{parsed.drivername}" ({DRIVERS})'
        )
    return parsed


def database_url_problem(url: str, setting: str = DATABASE_SETTING) -> str | None:
    """What `checked_url` finds wrong with `url`, as the line a service stops with, or None:
    a service checks it with its settings, before its heavy imports (`check_settings`)."""
    try:
        checked_url(setting, url)
    except DatabaseUnusable as exc:
        return str(exc)
    return None
