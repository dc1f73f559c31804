"""PostgreSQL engines keep a fixed pool: overflow connections would reconnect on every burst."""

from __future__ import annotations

import pytest

from baton_eventstore import create_engine


def test_postgres_pool_has_no_overflow() -> None:
    engine = create_engine("postgresql+asyncpg://postgres@127.0.0.1:5432/test")
    pool = engine.sync_engine.pool
    assert (pool.size(), pool._max_overflow) == (20, 0)  # type: ignore[attr-defined]


def test_pool_size_can_be_chosen() -> None:
    engine = create_engine("postgresql://u@h/db", pool_size=5)
    assert engine.sync_engine.pool.size() == 5  # type: ignore[attr-defined]


def test_unknown_database_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unsupported database 'mysql'"):
        create_engine("mysql://u@h/db")


def test_a_pool_of_no_connection_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="pool_size: must be at least 1, not 0"):
        create_engine("postgresql://u@h/db", pool_size=0)


def test_sqlite_ignores_the_pool_size() -> None:
    engine = create_engine("sqlite+aiosqlite:///:memory:", pool_size=5)
    assert engine.dialect.name == "sqlite"
