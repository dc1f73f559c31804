"""Closing a stopping service's PostgreSQL pools within a bound, whether the server answers.

A pooled connection is closed with a goodbye (asyncpg's Terminate), and asyncpg then waits
for the server to close its end, up to the connection's `command_timeout` (the statement
timeout and `CLIENT_MARGIN_SECONDS`), or for good without one. A server that answers nothing
(stopped with SIGSTOP, cut off by the network without a reset) never does: SQLAlchemy's
`dispose()` closed its pool's connections one after another, each waiting that long (a minute
on a pool of 20), and asyncpg's `Pool.close()` waited as long; a stopping service outlived its
orchestrator's grace and was killed. Here the goodbyes have `GOODBYE_SECONDS` in all, and what
is left then is dropped: closed at once, its socket with it. A server that answers takes a
millisecond: the normal stop is the same as before. Nothing committed is lost either way: the
pools are closed once their work has ended, and the server rolls back whatever was not.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import await_

log = logging.getLogger(__name__)

GOODBYE_SECONDS = 1.0
"""How long a stop waits, in all, for PostgreSQL to answer the goodbyes of one pool's
connections before it drops them."""
GAVE_UP = "database did not answer while stopping; closed its connections without waiting"
"""The WARNING a stop logs when it dropped connections the server did not let go of."""


async def dispose_engine(engine: AsyncEngine, within: float = GOODBYE_SECONDS) -> bool:
    """`engine.dispose()`, its connections' goodbyes given `within` seconds in all and the rest
    dropped; False when some were dropped. Only PostgreSQL's are bounded: SQLite has none."""
    if engine.dialect.name != "postgresql":
        await engine.dispose()
        return True
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    answered = True

    def goodbye(dbapi_connection: Any, _record: Any) -> None:
        # Runs in `dispose`'s greenlet, before SQLAlchemy's own close, which then finds the
        # connection closed and sends nothing.
        nonlocal answered
        driver = dbapi_connection.driver_connection
        left = deadline - loop.time()
        if left > 0:
            try:
                await_(driver.close(timeout=left))
                return
            except Exception:  # asyncpg dropped it (`_abort`) as it raised
                pass
        answered = False
        if not driver.is_closed():
            driver.terminate()

    pool = engine.sync_engine.pool
    event.listen(pool, "close", goodbye)
    try:
        await engine.dispose()
    finally:
        event.remove(pool, "close", goodbye)
    return answered


async def close_pool(pool: asyncpg.Pool, within: float = GOODBYE_SECONDS) -> bool:
    """`pool.close()` for `within` seconds, then its connections dropped (`Pool.terminate`);
    False when they were."""
    try:
        await asyncio.wait_for(pool.close(), within)
    except TimeoutError:
        pool.terminate()  # asyncpg's close did, as it was cancelled: a no-op then
        return False
    return True


def say_gave_up(engine: AsyncEngine) -> None:
    """Log `GAVE_UP`, naming the database (its password hidden)."""
    log.warning("%s (%s)", GAVE_UP, engine.url.render_as_string(hide_password=True))


async def close_engine(engine: AsyncEngine, within: float = GOODBYE_SECONDS) -> None:
    """`dispose_engine`, and `GAVE_UP` logged when the server did not answer."""
    if not await dispose_engine(engine, within):
        say_gave_up(engine)
