"""A start of a run takes a lock of its user on PostgreSQL (the count of the user's running runs
and the append are one transaction under it): it holds back no other user's start, and a start
still waiting for it when its time to write has passed writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_eventstore import SqlEventStore
from baton_workflow.adapters.dag_run_starts import owner_lock_id
from baton_workflow.service.dag_runs import START_NOT_WRITTEN_IN_TIME, start_dag_run

from .dag_starts import opened, service, start, written

pytestmark = pytest.mark.postgres


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    store = await opened(postgres_url)
    yield store
    await store.close()


@pytest.fixture
async def held(postgres_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A session of another replica, to hold a user's lock with."""
    conn = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    yield conn
    await conn.close()


async def test_a_start_waiting_for_its_users_lock_holds_back_no_other_users_start(
    store: SqlEventStore, held: asyncpg.Connection
) -> None:
    svc = service(store)
    async with held.transaction():  # another replica counting u's runs, for as long as it likes
        await held.execute("SELECT pg_advisory_xact_lock($1)", owner_lock_id("u"))
        waiting = asyncio.ensure_future(start_dag_run(svc, start("u", "k1")))
        await _waiting_for_the_lock(held, owner_lock_id("u"))
        other = await start_dag_run(svc, start("v", "k1"))  # on the same replica, meanwhile
        assert not waiting.done()
    mine = await waiting
    assert (await written(store, "v"))[0] == {other.run_id}
    assert (await written(store, "u"))[0] == {mine.run_id}


async def test_a_start_still_waiting_for_its_users_lock_past_its_time_writes_nothing(
    store: SqlEventStore, held: asyncpg.Connection
) -> None:
    async with held.transaction():
        await held.execute("SELECT pg_advisory_xact_lock($1)", owner_lock_id("u"))
        late = asyncio.ensure_future(
            start_dag_run(service(store, write_timeout=0.2), start("u", "k1"))
        )
        await _waiting_for_the_lock(held, owner_lock_id("u"))
        await asyncio.sleep(0.3)  # past the start's time to write, still waiting
    with pytest.raises(RemoteError) as refused:
        await late
    assert (refused.value.body.code, refused.value.body.message) == (
        ErrorCode.UNAVAILABLE,
        START_NOT_WRITTEN_IN_TIME,
    )
    assert await written(store, "u") == (set(), set())
    assert (await start_dag_run(service(store), start("u", "k1"))).status == "running"


async def _waiting_for_the_lock(conn: asyncpg.Connection, key: int) -> None:
    """Until another session waits for the advisory lock `key` (one bigint: two halves)."""
    query = (
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
        "AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1"
    )
    while not await conn.fetchval(query, key):  # noqa: ASYNC110 (another database session)
        await asyncio.sleep(0.01)
