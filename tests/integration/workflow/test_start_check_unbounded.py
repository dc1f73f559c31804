"""The start-up check of active instances reads the whole read model: it is not cut off by
the statement timeout (with millions of instances it may take longer, and cut off, the
service would retry it for ever instead of starting)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from baton_eventstore import SqlEventStore, migrate
from baton_workflow.adapters import read_model
from baton_workflow.adapters.instances import active_steps

pytestmark = pytest.mark.postgres
TIMEOUT = 0.2


async def test_the_check_of_active_instances_outlasts_the_statement_timeout(
    postgres_url: str,
) -> None:
    store = await SqlEventStore.from_url(postgres_url, statement_timeout=TIMEOUT)
    await migrate(store.engine, read_model.COMPONENT, read_model.STEPS)
    other = await asyncpg.connect(postgres_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        # A read that takes several times the bound: held up by a lock here, let go later.
        await other.execute("BEGIN")
        await other.execute("LOCK TABLE workflow_instances")
        release = asyncio.get_running_loop().call_later(
            5 * TIMEOUT, lambda: asyncio.ensure_future(other.execute("ROLLBACK"))
        )
        assert await active_steps(store) == {}
        release.cancel()
    finally:
        await other.close()
        await store.close()
