"""A local Qdrant folder whose disk is full: the write is `StoreUnavailable` naming the memory,
nothing of it is kept, and the next write after room is made succeeds with no restart.

The full disk is SQLite's own `PRAGMA max_page_count` on the folder's file (SQLITE_FULL,
"database or disk is full"), so no small disk has to be mounted."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from baton_agent_runner.adapters.mem0_memory import COLLECTION, Mem0MemoryStore, open_memory
from baton_agent_runner.service.ports import StoreUnavailable


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Mem0MemoryStore]:
    memory = await asyncio.to_thread(open_memory, tmp_path / "qdrant", None)
    store = Mem0MemoryStore(memory)
    yield store
    await asyncio.to_thread(store.close)


def points_file(store: Mem0MemoryStore) -> sqlite3.Connection:
    """The connection local Qdrant writes the collection's points through."""
    local = store._memory.vector_store.client._client
    connection: sqlite3.Connection = local.collections[COLLECTION].storage.storage
    return connection


def fill(connection: sqlite3.Connection, extra_pages: int | None) -> None:
    """No page more than the file has (a full disk), or `extra_pages` more of them."""
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    limit = pages if extra_pages is None else pages + extra_pages
    connection.execute(f"PRAGMA max_page_count = {limit}")


async def test_a_full_disk_is_unavailable_memory_keeps_nothing_and_recovers(
    store: Mem0MemoryStore,
) -> None:
    long = "run " * 5000  # more than the pages the file has room for
    await store.put_fact("ann", "priorities", "work", "ship the project")
    connection = points_file(store)
    await asyncio.to_thread(fill, connection, None)
    with pytest.raises(StoreUnavailable) as caught:
        await store.put_fact("ann", "priorities", "health", long)
    assert caught.value.store == "memory"
    assert "database or disk is full" in str(caught.value)
    assert await store.facts("ann", "priorities") == {"work": "ship the project"}

    await asyncio.to_thread(fill, connection, 1000)  # room again: the same store writes
    await store.put_fact("ann", "priorities", "health", long)
    assert await store.facts("ann", "priorities") == {"work": "ship the project", "health": long}
