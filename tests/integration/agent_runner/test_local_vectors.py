"""Search on a local Qdrant folder ranks a user's facts in memory, as Qdrant itself would."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory

WORDS = ("run", "morning", "startup", "family", "dinner", "book", "garden", "piano", "taxes")


def sentence(n: int) -> str:
    return " ".join(WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(4)) + f" #{n}"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Mem0MemoryStore]:
    memory = await asyncio.to_thread(open_memory, tmp_path / "qdrant", None)
    store = Mem0MemoryStore(memory)
    for n in range(40):
        category = ("priorities", "notes")[n % 2]
        await store.put_fact("ann", category, f"k{n}", sentence(n))
        await store.put_fact("bob", category, f"k{n}", sentence(n + 1))
    yield store
    await asyncio.to_thread(store.close)


def qdrant_order(store: Mem0MemoryStore, user: str, query: str, category: str | None) -> list[str]:
    """What the collection's own filtered search answers (the slow path the index replaces)."""
    memory = store._memory
    filters = {"user_id": user} | ({"category": category} if category else {})
    vector = memory.embedding_model.embed(query, "search")
    hits = memory.vector_store.search(query=query, vectors=vector, top_k=5, filters=filters)
    return [hit.payload["data"] for hit in hits]


async def test_the_nearest_facts_are_qdrants_and_only_the_users(store: Mem0MemoryStore) -> None:
    assert store._index is not None  # a local folder: the in-memory index answers
    for n, category in [(3, None), (8, "notes"), (21, "priorities"), (40, None)]:
        query = sentence(n)
        found = await store.search("ann", query, category, 5)
        expected = await asyncio.to_thread(qdrant_order, store, "ann", query, category)
        assert [f.text for f in found] == expected
        assert all(category in (None, f.category) for f in found)
    assert await store.search("carol", "run morning", None, 5) == []
    assert await store.search("ann", "run morning", "nothing", 5) == []


async def test_a_write_is_searchable_listed_and_counted_at_once(store: Mem0MemoryStore) -> None:
    assert (await store.search("ann", "violin lessons on sunday", None, 1))[0].key != "new"
    assert await store.count("ann", "notes") == 20  # the index now holds ann's facts
    await store.put_fact("ann", "notes", "new", "violin lessons on sunday")
    assert await store.count("ann", "notes") == 21
    assert (await store.facts("ann", "notes"))["new"] == "violin lessons on sunday"
    [first] = await store.search("ann", "violin lessons on sunday", None, 1)
    assert (first.key, first.text) == ("new", "violin lessons on sunday")
    await store.put_fact("ann", "notes", "new", "cello lessons on monday")  # a correction
    [first] = await store.search("ann", "cello lessons on monday", None, 1)
    assert (first.key, first.text) == ("new", "cello lessons on monday")
    assert await store.count("ann", None) == 41
    assert (await store.facts("ann", "notes"))["new"] == "cello lessons on monday"
    assert [f.key for f in await store.search("bob", "cello lessons on monday", None, 40)].count(
        "new"
    ) == 0


async def test_writes_of_one_key_at_once_keep_one_fact(store: Mem0MemoryStore) -> None:
    # Two turns of one user naming the same area at the same moment: the second must find
    # the first's fact and correct it, not add a second fact that the count would see.
    texts = [f"my startup, take {n}" for n in range(3)]
    await asyncio.gather(*(store.put_fact("ann", "priorities", "work", t) for t in texts))
    await asyncio.gather(*(store.put_fact("cat", "priorities", "work", t) for t in texts))
    assert await store.count("ann", "priorities") == 21
    assert await store.count("cat", "priorities") == 1
    assert (await store.facts("cat", "priorities"))["work"] in texts
