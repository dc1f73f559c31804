"""Long-term memory in Mem0 over Qdrant (a local folder, or a server by URL)."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import Any

EMBEDDING_DIMS = 64


class HashEmbedder:
    """A deterministic offline embedder: the same text always gets the same vector."""

    def __init__(self, dims: int = EMBEDDING_DIMS) -> None:
        self.dims = dims

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        """A unit-length vector from the text's SHA-256 digest (no network, no model)."""
        raw = b"".join(hashlib.sha256(f"{i}:{text}".encode()).digest() for i in range(3))
        vector = [byte / 255 - 0.5 for byte in raw[: self.dims]]
        norm = sum(v * v for v in vector) ** 0.5 or 1.0
        return [v / norm for v in vector]


def open_memory(qdrant_path: Path, qdrant_url: str | None) -> Any:
    """A Mem0 `Memory` on Qdrant with the offline embedder; telemetry off, state under the path."""
    qdrant_path.mkdir(parents=True, exist_ok=True)
    # mem0 reads these at import time: no telemetry, and its own files next to our data.
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(qdrant_path / "mem0"))
    from mem0 import Memory

    store: dict[str, Any] = {
        "collection_name": "baton_facts",
        "embedding_model_dims": EMBEDDING_DIMS,
    }
    store.update({"url": qdrant_url} if qdrant_url else {"path": str(qdrant_path), "on_disk": True})
    memory = Memory.from_config(
        {
            "vector_store": {"provider": "qdrant", "config": store},
            # Neither client is called: facts are added with infer=False and embedded locally.
            "embedder": {
                "provider": "openai",
                "config": {"api_key": "unused", "embedding_dims": EMBEDDING_DIMS},
            },
            "llm": {"provider": "openai", "config": {"api_key": "unused"}},
            "history_db_path": str(qdrant_path / "history.db"),
        }
    )
    memory.embedding_model = HashEmbedder()
    return memory


class Mem0MemoryStore:
    """The `MemoryStore` port on Mem0; calls run in a thread, one at a time (local Qdrant)."""

    def __init__(self, memory: Any) -> None:
        self._memory = memory
        self._lock = asyncio.Lock()

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        async with self._lock:
            return await asyncio.to_thread(getattr(self._memory, name), *args, **kwargs)

    async def _all(self, user_id: str, category: str | None) -> list[dict[str, Any]]:
        found = await self._call("get_all", filters={"user_id": user_id}, top_k=10_000)
        rows: list[dict[str, Any]] = found.get("results", [])
        return [r for r in rows if category is None or _meta(r).get("category") == category]

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> None:
        """Add the fact, or update the one with the same category and key (a correction)."""
        same = [r for r in await self._all(user_id, category) if _meta(r).get("key") == key]
        if same:
            await self._call("update", same[0]["id"], data=text)
            return
        await self._call(
            "add", text, user_id=user_id, infer=False, metadata={"category": category, "key": key}
        )

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in `category`, by key."""
        return {str(_meta(r).get("key")): r["memory"] for r in await self._all(user_id, category)}

    async def count(self, user_id: str, category: str | None) -> int:
        """How many facts the user has, in one category or all."""
        return len(await self._all(user_id, category))

    async def search(self, user_id: str, query: str, limit: int = 5) -> list[str]:
        """The user's facts nearest to `query`."""
        found = await self._call("search", query, filters={"user_id": user_id}, top_k=limit)
        return [r["memory"] for r in found.get("results", [])]

    def close(self) -> None:
        """Release the local Qdrant folder lock."""
        client = getattr(getattr(self._memory, "vector_store", None), "client", None)
        if client is not None:
            client.close()


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    return row.get("metadata") or {}
