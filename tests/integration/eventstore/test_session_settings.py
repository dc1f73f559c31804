"""Every PostgreSQL session Baton opens runs without the JIT compiler (`OLTP_SESSION`).

PostgreSQL compiles a statement whose estimated cost passes `jit_above_cost`; the append
pool's plans carry the planner's disable cost (`KEY_LOOKUPS_ONLY`), so its relay lease was
compiled on every renewal, at 10-200 ms of CPU for a sub-millisecond statement.
"""

from __future__ import annotations

import json

import pytest

from baton_eventstore import create_engine
from baton_eventstore.asyncpg_pool import LazyPool

pytestmark = pytest.mark.postgres

# A table with no index: its only plan is a sequential scan, which with `enable_seqscan` off
# (as in the append pool) is estimated above `jit_above_cost`, so JIT would compile it.
SCAN = "SELECT count(*) FROM unindexed WHERE n > 1"


async def test_the_engines_sessions_run_without_jit(postgres_url: str) -> None:
    engine = create_engine(postgres_url)
    try:
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("SHOW jit")).scalar() == "off"
    finally:
        await engine.dispose()


async def test_a_callers_own_server_settings_are_kept_beside_it(postgres_url: str) -> None:
    settings = {"application_name": "baton-test"}
    engine = create_engine(postgres_url, connect_args={"server_settings": settings})
    try:
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("SHOW jit")).scalar() == "off"
            assert (await conn.exec_driver_sql("SHOW application_name")).scalar() == "baton-test"
    finally:
        await engine.dispose()


async def test_the_append_pools_sessions_run_without_jit(postgres_url: str) -> None:
    engine = create_engine(postgres_url)
    pool = LazyPool(engine)
    try:
        async with pool.connection() as conn:
            assert await conn.fetchval("SHOW jit") == "off"
            assert await conn.fetchval("SHOW enable_seqscan") == "off"  # still key lookups only
            await conn.execute("CREATE TEMP TABLE unindexed AS SELECT generate_series(1, 10) n")
            plan = json.loads(await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {SCAN}"))
            assert plan[0]["Plan"]["Total Cost"] > float(await conn.fetchval("SHOW jit_above_cost"))
            assert "JIT" not in plan[0], "the statement was compiled"
    finally:
        await pool.close()
        await engine.dispose()
