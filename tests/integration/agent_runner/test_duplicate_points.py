"""A fact Mem0 holds as several points (made before user ids with white space were refused:
Mem0 trims them, so a put for "alice " found none of alice's points and added one) is one point
again once it is saved: a put updated only the first, and reads could find a stale other.

The server's code path is taken on a local Qdrant folder by leaving out the folder's
in-memory index.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore

from .conftest import ServerStore


def _points(memory: Any, user_id: str, texts: list[str]) -> None:
    """The points of (priorities, work) that earlier puts made, as Mem0 added them."""
    metadata = {"category": "priorities", "key": "work"}
    for text in texts:
        memory.add(text, user_id=user_id, infer=False, metadata=metadata)


@pytest.mark.parametrize("kind", ["server", "local"])
async def test_a_put_leaves_one_point_of_a_fact_and_every_read_finds_it(
    memory: Any, kind: str
) -> None:
    await asyncio.to_thread(_points, memory, "alice", ["Work: first", "Work: second"])
    await asyncio.to_thread(_points, memory, "bob", ["Work: bob's"])
    store = ServerStore(memory) if kind == "server" else Mem0MemoryStore(memory)
    await store.put_fact("alice", "priorities", "work", "Work: latest")
    for reader in (store, ServerStore(memory)):  # and what Qdrant itself holds
        assert await reader.facts("alice", "priorities") == {"work": "Work: latest"}
        assert await reader.count("alice", None) == 1
        listed = await reader.list_facts("alice", None, 10)
        assert [f.text for f in listed] == ["Work: latest"]
        found = await reader.search("alice", "Work: first", None, 10)
        assert [f.text for f in found] == ["Work: latest"]
        assert await reader.facts("bob", "priorities") == {"work": "Work: bob's"}
    # A take-back's compare-and-set sees the one point too.
    assert await store.set_fact_if("alice", "priorities", "work", holds="Work: latest", text=None)
    assert await ServerStore(memory).count("alice", None) == 0
