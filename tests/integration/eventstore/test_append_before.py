"""An append on the store's own appenders (PostgreSQL's asyncpg pool, a SQLite file's thread)
may first run a caller's `before` in its transaction: for what one statement cannot decide,
such as a count of a read model taken under a lock (the workflow's limit of runs one user may
have running). `before` refuses by raising, and nothing is written; what it lets through is
committed with it and reaches the relay's log as any append does.
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton_eventstore import NewEvent, OutboxMessage, SqlEventStore, StartByPassed


class Refused(Exception):
    pass


def ev(n: int) -> NewEvent:
    message = OutboxMessage("t.evt.s", f"{n}".encode(), {})
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n}, publish=message)


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        request.applymarker(pytest.mark.postgres)
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
async def store(url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(url)
    if store.outbox.committed is not None:  # as a relay does: the log records from now on
        store.outbox.committed.listen()
    yield store
    await store.close()


async def append(store: SqlEventStore, before: Any, start_by: datetime | None = None) -> None:
    now = datetime.now(UTC)
    if store.appender is not None:
        await store.appender.append("s", 0, [ev(1)], now, None, start_by, before=before)
        return
    assert store.sqlite is not None
    await store.sqlite.append("s", 0, [ev(1)], now, None, start_by, before=before)


def seen_in_a_transaction(seen: list[bool]) -> Any:
    """A `before` for the store's backend that notes whether it ran inside a transaction."""

    async def on_pg(conn: Any) -> None:
        seen.append(conn.is_in_transaction())

    def on_sqlite(conn: sqlite3.Connection) -> None:
        seen.append(conn.in_transaction)

    return on_pg, on_sqlite


def pick(store: SqlEventStore, pair: tuple[Any, Any]) -> Any:
    return pair[0] if store.appender is not None else pair[1]


async def test_what_before_lets_through_is_committed_in_its_transaction(
    store: SqlEventStore,
) -> None:
    seen: list[bool] = []
    await append(store, pick(store, seen_in_a_transaction(seen)))

    assert seen == [True]
    assert [e.version for e in await store.load("s")] == [1]
    assert len(await store.outbox.fetch(10)) == 1
    if store.outbox.committed is not None:  # PostgreSQL: the relay takes it from the log
        assert [a.stream_id for a in store.outbox.committed.take()] == ["s"]


async def test_what_before_refuses_writes_nothing(store: SqlEventStore) -> None:
    async def on_pg(conn: Any) -> None:
        raise Refused

    def on_sqlite(conn: sqlite3.Connection) -> None:
        raise Refused

    with pytest.raises(Refused):
        await append(store, pick(store, (on_pg, on_sqlite)))

    assert await store.load("s") == [] and await store.outbox.fetch(10) == []
    if store.outbox.committed is not None:
        assert store.outbox.committed.take() == []
    await append(store, pick(store, seen_in_a_transaction([])))  # the connection is fine
    assert [e.version for e in await store.load("s")] == [1]


@pytest.mark.postgres
async def test_an_append_whose_before_waited_past_its_start_by_writes_nothing(
    postgres_url: str,
) -> None:
    store = await SqlEventStore.from_url(postgres_url)
    try:

        async def slow(conn: Any) -> None:  # a lock waited for, say
            await asyncio.sleep(0.3)

        with pytest.raises(StartByPassed):
            await append(store, slow, start_by=datetime.now(UTC) + timedelta(seconds=0.1))
        assert await store.load("s") == [] and await store.outbox.fetch(10) == []
    finally:
        await store.close()
