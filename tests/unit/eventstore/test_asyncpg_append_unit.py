"""The PostgreSQL append pool is sized and addressed from the engine, and opened only on use."""

from __future__ import annotations

import uuid

import pytest

from baton_eventstore import NewEvent, SqlEventStore, create_engine
from baton_eventstore.asyncpg_pool import connect_options, pool_limit

# Port 1 on loopback: nothing listens there, so an accidental connection attempt would fail.
UNREACHABLE = "postgresql+asyncpg://u:secret@127.0.0.1:1/db"


def test_pool_limit_follows_the_engine_pool() -> None:
    assert pool_limit(create_engine(UNREACHABLE)) == 20
    assert pool_limit(create_engine(UNREACHABLE, pool_size=5, max_overflow=3)) == 8


def test_unlimited_overflow_is_capped_at_the_pool_size() -> None:
    assert pool_limit(create_engine(UNREACHABLE, pool_size=4, max_overflow=-1)) == 4


def test_connect_options_come_from_the_url_without_sqlalchemy_only_ones() -> None:
    engine = create_engine(UNREACHABLE + "?prepared_statement_cache_size=50")
    assert connect_options(engine) == {
        "host": "127.0.0.1",
        "port": 1,
        "user": "u",
        "password": "secret",
        "database": "db",
    }


def test_only_asyncpg_stores_get_the_append_pool(tmp_path: object) -> None:
    sqlite = SqlEventStore(create_engine(f"sqlite+aiosqlite:///{tmp_path}/x.db"))
    postgres = SqlEventStore(create_engine(UNREACHABLE, pool_size=7, max_overflow=0))
    assert sqlite.appender is None
    assert postgres.appender is not None
    assert (postgres.appender.max_size, postgres.appender.is_open) == (7, False)


async def test_bad_input_is_refused_before_any_connection() -> None:
    store = SqlEventStore(create_engine(UNREACHABLE))
    with pytest.raises(ValueError, match="stream_id"):
        await store.append("", 0, [NewEvent(uuid.uuid4(), "t", {})])
    assert store.appender is not None and not store.appender.is_open
    await store.close()  # nothing was opened, so closing needs no server either
