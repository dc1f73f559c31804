"""A stop (SIGTERM, a rolling deploy) while the agent-runner's PostgreSQL hangs (stopped with
SIGSTOP, cut off by the network without a reset) ends within its own bounds, and says it gave
up on the database.

Each pooled connection was closed with a goodbye asyncpg then waited on for a statement's
bound (`BATON_STORE_TIMEOUT_SECONDS` and the client's 1 s), one after another, and SQLAlchemy
logged each as an ERROR with a traceback: 100 s on a pool of 20 on the defaults."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from baton_agent_runner.bootstrap import build
from baton_contracts.agent_api import CountInboxItems
from baton_eventstore.closing import GAVE_UP, GOODBYE_SECONDS

from ...frozen_proxy import FrozenProxy
from .conftest import settings

HANG = 60.0  # only stops the test hanging
POOLED = 6  # connections in the pool before the freeze


@pytest.mark.postgres
@pytest.mark.timeout(120)
async def test_a_stop_while_the_database_hangs_ends_in_time(
    postgres_url: str, nats_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with FrozenProxy(postgres_url).running() as proxy:
        app = build(
            settings(
                nats_url, proxy.proxied_url, memory_backend="sql",
                qdrant_path=tmp_path / "qdrant", store_timeout_seconds=0.5,
            )
        )  # fmt: skip
        await app.start()
        count = CountInboxItems(user_id="ann")
        await asyncio.gather(*(app.queries.count_items(count) for _ in range(POOLED)))
        proxy.freeze()
        began = time.monotonic()
        with caplog.at_level(logging.WARNING):
            await asyncio.wait_for(app.stop(), HANG)
        took = time.monotonic() - began
    # Nothing in flight: the pool's goodbyes alone. 1 s for a loaded host.
    assert took < GOODBYE_SECONDS + 1.0, took
    gave_up = [r.getMessage() for r in caplog.records if r.getMessage().startswith(GAVE_UP)]
    assert len(gave_up) == 1, gave_up
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
