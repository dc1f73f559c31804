"""A user's facts are counted exactly on a Qdrant server, however many there are (Mem0's
`get_all` stops at its `top_k`).

The server's code path is taken on a local Qdrant folder by leaving out the folder's
in-memory index.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from qdrant_client import models

from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore

from .conftest import ServerStore


def _many_facts(memory: Any, user_id: str, n: int) -> None:
    """`n` facts of `user_id` written straight into the collection, the last one's key first."""
    store, dims = memory.vector_store, memory.embedding_model.dims
    for start in range(0, n, 2000):
        points = [
            models.PointStruct(
                id=str(uuid.UUID(int=i + 1)),  # scrolled in this order
                vector=[1.0] * dims,
                payload={
                    "user_id": user_id,
                    "category": "priorities" if i % 2 else "notes",
                    "key": "a-first" if i == n - 1 else f"k{i:06d}",
                    "data": f"fact {i}",
                },
            )
            for i in range(start, min(start + 2000, n))
        ]
        store.client.upsert(store.collection_name, points=points)


async def test_a_user_with_more_than_ten_thousand_facts_is_counted_exactly(memory: Any) -> None:
    # Ten seconds of a local folder's writes: a cap of 10,000 needs more to show.
    await asyncio.to_thread(_many_facts, memory, "big", 10_001)
    server = ServerStore(memory)
    local = Mem0MemoryStore(memory)
    assert local._index is not None
    for store in (server, local):
        assert await store.count("big", None) == 10_001
        assert await store.count("big", "priorities") == 5_000
        assert await store.count("big", "notes") == 5_001
        assert await store.count("nobody", None) == 0
        [first] = await store.list_facts("big", None, 1)
        assert first.key == "a-first"


@pytest.mark.parametrize("kind", ["server", "local"])
async def test_a_star_is_a_category_name_not_any_category(memory: Any, kind: str) -> None:
    # Mem0's own search filter reads "*" as "any": on a Qdrant server, `GET /api/memory?
    # category=*&q=...` returned the user's facts of every category (found by a review).
    store = ServerStore(memory) if kind == "server" else Mem0MemoryStore(memory)
    await store.put_fact("alice", "priorities", "work", "alice work")
    await store.put_fact("alice", "secrets", "pin", "alice pin")
    await store.put_fact("bob", "priorities", "work", "bob work")
    assert await store.search("alice", "anything", "*", 10) == []
    assert await store.search("*", "anything", None, 10) == []
    found = await store.search("alice", "work", "priorities", 10)
    assert [(f.category, f.text) for f in found] == [("priorities", "alice work")]
    assert len(await store.search("alice", "work", None, 10)) == 2
