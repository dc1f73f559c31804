"""A store call cut off by its timeout (`BATON_STORE_TIMEOUT_SECONDS`) or a turn's deadline
writes nothing later: the statement itself is bounded in the database. Cut off in this process
only, a statement waiting for a lock (a session holding `LOCK TABLE`) went on in the server and
wrote once the lock went, after the turn had been reported as failed."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from baton_agent_runner.bootstrap import build
from baton_eventstore import is_unavailable

from .conftest import settings

pytestmark = pytest.mark.postgres
STORE_TIMEOUT = 0.3


async def test_a_write_held_up_by_a_lock_fails_and_never_lands(
    nats_url: str, postgres_url: str
) -> None:
    app = build(
        settings(nats_url, postgres_url, memory_backend="sql", store_timeout_seconds=STORE_TIMEOUT)
    )
    await app.start()
    memory = app.runner.memory
    other = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await other.execute("BEGIN")
        await other.execute("LOCK TABLE agent_memory_facts")
        # Let go after several times the bound: a statement still waiting then would go in.
        release = asyncio.get_running_loop().call_later(
            5 * STORE_TIMEOUT, lambda: asyncio.ensure_future(other.execute("ROLLBACK"))
        )
        with pytest.raises(Exception) as failed:
            await memory.put_fact("ana", "priorities", "work", "ship it")
        release.cancel()
        assert is_unavailable(failed.value), repr(failed.value)
        await other.execute("ROLLBACK")
        assert await memory.facts("ana", "priorities") == {}
    finally:
        await other.close()
        await app.stop()
