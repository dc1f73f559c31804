"""A PostgreSQL that answers nothing (stopped with SIGSTOP, cut off by the network without a
reset) fails a store's statements as unavailable, within the client's own bound past the
statement timeout (`CLIENT_MARGIN_SECONDS`), rather than holding them until it comes back;
once it answers again, the store goes on, nothing written twice."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import pytest
from sqlalchemy import Connection, text

from baton_eventstore import NewEvent, SqlEventStore, create_engine, is_unavailable, migrate
from baton_eventstore.engine import CLIENT_MARGIN_SECONDS, NO_ANSWER, read
from baton_eventstore.migrations import _LOCK_KEY

from ...frozen_proxy import FrozenProxy

TIMEOUT = 0.2
BOUND = 30.0  # only stops the test hanging: without the client's bound each call hung for good


def event(n: int) -> NewEvent:
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n})


async def fails_unavailable(call: Callable[[], Awaitable[Any]]) -> None:
    task = asyncio.ensure_future(call())
    done, _ = await asyncio.wait({task}, timeout=BOUND)
    if task not in done:
        task.cancel()
        pytest.fail("still waiting on a server that answers nothing")
    exc = task.exception()
    assert exc is not None and is_unavailable(exc), repr(exc)
    assert str(exc) == NO_ANSWER


@pytest.mark.postgres
async def test_statements_to_a_frozen_server_fail_unavailable_and_it_goes_on_after(
    postgres_url: str,
) -> None:
    async with FrozenProxy(postgres_url).running() as proxy:
        store = await SqlEventStore.from_url(proxy.proxied_url, statement_timeout=TIMEOUT)
        try:
            await store.append("s", 0, [event(1)])  # opens both pools before the freeze
            proxy.freeze()
            await fails_unavailable(lambda: read(store.engine, text("SELECT 1")))
            await fails_unavailable(lambda: store.load("s"))
            await fails_unavailable(lambda: store.append("s", 1, [event(2)]))
            proxy.thaw()
            versions = [e.version for e in await store.load("s")]
            if versions == [1]:  # the append's fate was unknown; it never reached the server
                await store.append("s", 1, [event(2)])
            assert [e.version for e in await store.load("s")] == [1, 2]
        finally:
            proxy.thaw()
            await store.close()


@pytest.mark.postgres
async def test_a_new_connection_to_a_frozen_server_fails_unavailable(postgres_url: str) -> None:
    async with FrozenProxy(postgres_url).running() as proxy:
        engine = create_engine(proxy.proxied_url, statement_timeout=TIMEOUT)
        try:
            proxy.freeze()  # it takes the connection and says nothing
            await fails_unavailable(lambda: read(engine, text("SELECT 1")))
            proxy.thaw()
            assert (await read(engine, text("SELECT 1"))).scalar() == 1
        finally:
            proxy.thaw()
            await engine.dispose()


@pytest.mark.postgres
async def test_reads_on_a_frozen_server_are_given_up_at_the_clients_bound(
    postgres_url: str,
) -> None:
    # Each connection given up on was then closed with a goodbye the server never answered,
    # 2 s more, and so was every other pooled connection at its next checkout: on the
    # services' settings a read took 5 s, the gateway's whole wait. Several connections are
    # pooled before the freeze, so the reads after the first meet them.
    async with FrozenProxy(postgres_url).running() as proxy:
        engine = create_engine(proxy.proxied_url, statement_timeout=TIMEOUT)
        try:
            async with engine.connect() as a, engine.connect() as b, engine.connect() as c:
                for conn in (a, b, c):
                    await conn.execute(text("SELECT 1"))
            proxy.freeze()
            bound = TIMEOUT + CLIENT_MARGIN_SECONDS
            for _ in range(3):
                began = time.monotonic()
                await fails_unavailable(lambda: read(engine, text("SELECT 1")))
                # Under the goodbye's 2 s more (the least it added): given up on at the bound.
                assert time.monotonic() - began < bound + 1.5
            proxy.thaw()
            assert (await read(engine, text("SELECT 1"))).scalar() == 1
        finally:
            proxy.thaw()
            await engine.dispose()


def _table(conn: Connection) -> None:
    conn.exec_driver_sql("CREATE TABLE waited (id INTEGER PRIMARY KEY)")


@pytest.mark.postgres
async def test_a_migration_still_waits_for_another_past_the_clients_bound(
    postgres_url: str,
) -> None:
    engine = create_engine(postgres_url, statement_timeout=TIMEOUT)
    other = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await other.execute("SELECT pg_advisory_lock($1)", _LOCK_KEY)  # another's migration
        held = TIMEOUT + CLIENT_MARGIN_SECONDS + 1.0
        release = asyncio.get_running_loop().call_later(
            held, lambda: asyncio.ensure_future(other.close())
        )
        assert await migrate(engine, "waited", [_table]) == 1
        release.cancel()
        # The client's bound is back for everything else: a statement the server lets run on
        # past it (its own bound lifted) is given up on.
        async with engine.connect() as conn:
            await conn.exec_driver_sql("SET LOCAL statement_timeout = 0")
            with pytest.raises(Exception) as failed:
                await conn.exec_driver_sql(f"SELECT pg_sleep({held})")
        assert str(failed.value) == NO_ANSWER
    finally:
        await other.close()
        await engine.dispose()
