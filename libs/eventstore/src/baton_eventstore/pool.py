"""The default size of a service's database connection pool (`BATON_DATABASE_POOL_SIZE`).

Its own module, without SQLAlchemy: a service's settings name it, and are read and checked
before the service imports what it runs on, so a bad setting is said at once.
"""

DEFAULT_POOL_SIZE = 20
"""Connections an engine keeps open (`create_engine`); callers beyond them wait for one."""
