"""One writer at a time of one memory fact, (user, category, key), across replicas.

Mem0 stores a fact under a point id of its own choosing, so a fact saved twice at once (two
replicas answering turns of one user, on one Qdrant server) is two points unless the look for
it and the write are done by one writer at a time. Mem0's public `search`/`update`/`add` are
used as they are; what serialises them is a lock in the agent-runner's own database: an
advisory lock on PostgreSQL, the database replicas share. A SQLite database serves one
process, so a lock of the process is enough there.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import raw_postgres
from baton_agent_runner.adapters.sql import reachable
from baton_agent_runner.service.key_locks import KeyLocks

_STORE = "memory fact lock"


class FactLocks(Protocol):
    """Holds a fact's lock while a block looks for it and writes it."""

    def held(self, user_id: str, category: str, key: str) -> AbstractAsyncContextManager[None]:
        """The fact's lock, held until the block ends; waits while another holds it."""


def lock_id(user_id: str, category: str, key: str) -> int:
    """The fact's advisory lock id: a signed 64-bit hash of the fact's names. Two facts that
    share one only wait for each other; the prefix keeps clear of other users of advisory
    locks on the database (the migrations' lock is a CRC-32, below 2**32)."""
    named = "\0".join(("baton.agent_runner.fact", user_id, category, key)).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(named, digest_size=8).digest(), "big", signed=True)


class ProcessFactLocks:
    """The facts' locks of this process (shared by its stores): enough on SQLite."""

    _locks = KeyLocks()

    def held(self, user_id: str, category: str, key: str) -> AbstractAsyncContextManager[None]:
        return self._locks.one_at_a_time((user_id, category, key))


class PostgresFactLocks:
    """The facts' locks on PostgreSQL: advisory locks, held by whichever replica asks first."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @asynccontextmanager
    async def held(self, user_id: str, category: str, key: str) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            # Only the lock's own statements are the database's: the block's errors are its own.
            with reachable(_STORE):
                lock = raw_postgres.advisory_lock(
                    self._engine, _STORE, lock_id(user_id, category, key)
                )
                await stack.enter_async_context(lock)
            yield


def fact_locks(engine: AsyncEngine) -> FactLocks:
    """The facts' locks of the agent-runner's database."""
    if raw_postgres.is_postgres(engine):
        return PostgresFactLocks(engine)
    return ProcessFactLocks()
