"""Mem0 keeps no history of facts: saving one each turn adds nothing on disk beside it.

Mem0 wrote every add, update and delete (old and new text) to `history.db` and never deleted a
row, so the file grew by a row a turn for as long as the agent-runner ran, and kept the text of
facts the user had corrected or taken back. Baton never reads that history.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory


async def test_corrections_and_a_take_back_leave_no_history(tmp_path: Path) -> None:
    folder = tmp_path / "qdrant"
    memory = await asyncio.to_thread(open_memory, folder, None)
    store = Mem0MemoryStore(memory)
    try:
        for turn in range(20):  # the same area named again on each turn: a correction
            await store.put_fact("ann", "priorities", "health", f"I run {turn} km a day")
        [row] = await store._rows("ann", category="priorities", key="health")
        await store.forget_fact("ann", "priorities", "health")
        assert await store.count("ann", None) == 0
        assert await asyncio.to_thread(memory.history, row["id"]) == []
    finally:
        await asyncio.to_thread(store.close)
    assert sorted(p.name for p in folder.rglob("history.db")) == []
