"""Two agent-runner replicas saving the same fact at once keep one fact: the look for it and
the write (Mem0's search, then its update or add) hold a lock of that (user, category, key) in
the agent-runner's database, on PostgreSQL an advisory lock shared by the replicas. A
take-back's compare-and-set (`set_fact_if`) holds it from its look to its change.

Each "replica" is a store of its own (its own memory thread and database pool) on one Qdrant
collection, taking the server's code path (no local in-memory index): what two processes on
one Qdrant server and one database do.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters.fact_locks import FactLocks, fact_locks
from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from baton_eventstore import create_engine

PAUSE = 1.0
"""How long a replica's look waits for the other's look (it waits in vain with the lock)."""


class Replica(Mem0MemoryStore):
    """A store as it runs against a Qdrant server, whose look for the fact waits (up to
    `PAUSE`) until the other replica has looked too: without a lock both then find nothing,
    and both add the fact."""

    def __init__(self, memory: Any, engine: AsyncEngine, looked: threading.Barrier) -> None:
        super().__init__(memory, fact_locks(engine))
        self._index = None
        self.looked = looked

    def _rows_now(self, user_id: str, where: dict[str, str]) -> list[dict[str, Any]]:
        rows = super()._rows_now(user_id, where)
        # Broken: the other replica is held by the lock, so this one writes first.
        with contextlib.suppress(threading.BrokenBarrierError):
            self.looked.wait(PAUSE)
        return rows


class OneAtATime:
    """The local Qdrant client, called from one thread at a time, as a Qdrant server takes
    the replicas' requests. The local client is not safe across threads: the two replicas'
    memory threads writing other facts at once into its SQLite file failed now and then with
    `cannot commit - no transaction is active` (a fault of this set-up, not of the stores)."""

    def __init__(self, client: Any) -> None:
        self._client, self._lock = client, threading.RLock()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._client, name)
        if not callable(found):
            return found

        def called(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return found(*args, **kwargs)

        return called


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[Any]:
    memory = await asyncio.to_thread(open_memory, tmp_path / "qdrant", None)
    memory.vector_store.client = OneAtATime(memory.vector_store.client)
    yield memory
    await asyncio.to_thread(memory.vector_store.client.close)


@pytest.fixture
async def engines(engine: AsyncEngine, database_url: str) -> AsyncIterator[list[AsyncEngine]]:
    """Each replica's own pool on the one migrated database."""
    other = create_engine(database_url)
    yield [engine, other]
    await other.dispose()


async def test_two_replicas_saving_one_fact_at_once_keep_one(
    memory: Any, engines: list[AsyncEngine]
) -> None:
    looked = threading.Barrier(2)
    a, b = (Replica(memory, engine, looked) for engine in engines)
    await asyncio.gather(
        a.put_fact("alice", "priorities", "work", "Work: my startup"),
        b.put_fact("alice", "priorities", "work", "Work: my startup, still"),
    )
    rows = await a._rows("alice", category="priorities")
    assert len(rows) == 1, rows
    assert rows[0]["memory"] in ("Work: my startup", "Work: my startup, still")
    # Other keys and users are other locks: they are not held up by each other.
    looked.reset()
    await asyncio.gather(
        a.put_fact("alice", "priorities", "health", "Health: running"),
        b.put_fact("bob", "priorities", "health", "Health: running"),
    )
    assert await a.count("alice", "priorities") == 2 and await b.count("bob", None) == 1


async def test_a_write_whose_caller_gave_up_keeps_the_lock_until_it_is_written(
    memory: Any, engines: list[AsyncEngine]
) -> None:
    # The turn's store limit cut replica a's call while Mem0 was writing on its thread: the
    # write goes on, and replica b must not look for the fact before it has landed.
    looked = threading.Barrier(1)
    a, b = (Replica(memory, engine, looked) for engine in engines)
    writing, go_on = threading.Event(), threading.Event()
    add = memory.add

    def slow_add(*args: Any, **kwargs: Any) -> Any:
        writing.set()
        go_on.wait(10)
        return add(*args, **kwargs)

    memory.add = slow_add
    try:
        first = asyncio.create_task(a.put_fact("alice", "priorities", "work", "Work: a"))
        await asyncio.to_thread(writing.wait, 10)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        memory.add = add
        second = asyncio.create_task(b.put_fact("alice", "priorities", "work", "Work: b"))
        await asyncio.sleep(0.3)
        assert not second.done()  # waiting for a's lock, not writing a second fact
        go_on.set()
        await second
    finally:
        memory.add = add
        go_on.set()
    rows = await b._rows("alice", category="priorities")
    assert [row["memory"] for row in rows] == ["Work: b"]


class Asking:
    """A replica's fact locks, setting `asked` when a write asks for one."""

    def __init__(self, locks: FactLocks, asked: threading.Event) -> None:
        self._locks, self.asked = locks, asked

    def held(self, user_id: str, category: str, key: str) -> AbstractAsyncContextManager[None]:
        self.asked.set()
        return self._locks.held(user_id, category, key)


async def test_a_fact_written_while_a_take_back_looks_at_it_is_written_after(
    memory: Any, engines: list[AsyncEngine]
) -> None:
    # Replica a takes back its turn's fact; replica b saves the fact for another turn right
    # after a's look found a's text. b's write must wait for a's delete, not be deleted by it.
    loop, asked = asyncio.get_running_loop(), threading.Event()
    b = Replica(memory, engines[1], threading.Barrier(1))
    b._locks = Asking(b._locks, asked)
    writing_b: list[Future[None]] = []

    class Looking(Replica):
        def _rows_now(self, user_id: str, where: dict[str, str]) -> list[dict[str, Any]]:
            rows = super()._rows_now(user_id, where)
            if not writing_b:  # a's look, on a's memory thread: b's write starts now
                put = b.put_fact("alice", "priorities", "work", "Work: b")
                writing_b.append(asyncio.run_coroutine_threadsafe(put, loop))
                assert asked.wait(10)
            return rows

    await b.put_fact("alice", "priorities", "work", "Work: a")
    asked.clear()
    a = Looking(memory, engines[0], threading.Barrier(1))
    assert await a.set_fact_if("alice", "priorities", "work", holds="Work: a", text=None)
    await asyncio.wrap_future(writing_b[0])
    assert await a.facts("alice", "priorities") == {"work": "Work: b"}
    assert await b.count("alice", "priorities") == 1
