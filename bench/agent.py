"""Agent memory: search over one user's facts in Mem0 on a local Qdrant folder."""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from bench.measure import sequential
from bench.registry import Options, Row, case

TARGET_P95_MS = 20.0
CATEGORIES = ("priorities", "projects", "people", "places", "habits")
WORDS = ("run", "morning", "startup", "launch", "family", "dinner", "book", "garden", "piano",
         "taxes", "doctor", "trip", "budget", "friend", "course", "code", "sleep")  # fmt: skip


def _fact(n: int) -> str:
    """A short sentence of four words, different for every n."""
    return " ".join(WORDS[(n // len(WORDS) ** i) % len(WORDS)] for i in range(4)) + f" #{n}"


@case("agent.memory_search", "memory search under 20 ms p95: 1,000 facts, Mem0, local Qdrant")
async def memory_search(options: Options) -> list[Row]:
    facts, searches = options.size(1000, 100), options.size(200, 50)
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as folder:
        memory = await asyncio.to_thread(open_memory, Path(folder) / "qdrant", None)
        store = Mem0MemoryStore(memory)
        try:
            for n in range(facts):
                await store.put_fact("bench", CATEGORIES[n % len(CATEGORIES)], f"k{n}", _fact(n))
            await store.search("bench", "warm up", None, 5)

            async def search(i: int) -> object:
                found = await store.search("bench", _fact(i * 7 % facts), None, 5)
                assert len(found) == 5
                return found

            row = await sequential(
                f"search top 5 of {facts:,} facts (hash embedder), sequential", searches, search
            )

            async def search_after_a_write(i: int) -> object:
                await store.put_fact("bench", "notes", f"late{i}", _fact(facts + i))
                t0 = time.perf_counter()
                await search(i)
                return time.perf_counter() - t0

            after_write = await sequential(
                f"the same, each right after a write of that user's ({facts:,}+ facts)",
                options.size(30, 5),
                search_after_a_write,
            )
        finally:
            await asyncio.to_thread(store.close)
    verdict = "met" if (row.p95_ms or 0.0) < TARGET_P95_MS else "MISSED"
    return [
        replace(row, note=f"target p95 < {TARGET_P95_MS:g} ms: {verdict}"),
        replace(
            after_write,
            note="latency includes the write (a new fact)",
        ),
    ]
