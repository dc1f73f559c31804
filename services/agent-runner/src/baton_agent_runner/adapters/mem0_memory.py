"""Long-term memory in Mem0 over Qdrant (a local folder, or a server by URL); `mem0_open`
opens it."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from qdrant_client import models

from baton_agent_runner.adapters.embedders import HashEmbedder
from baton_agent_runner.adapters.fact_locks import FactLocks, ProcessFactLocks
from baton_agent_runner.adapters.local_vectors import LocalUserIndex
from baton_agent_runner.adapters.mem0_open import COLLECTION, UNAVAILABLE, open_memory
from baton_agent_runner.service.ports import StoreUnavailable
from baton_contracts.agent_api import MemoryFact

logger = logging.getLogger("baton.agent_runner")
__all__ = ["COLLECTION", "HashEmbedder", "Mem0MemoryStore", "open_memory"]

_PAGE = 1000


class Mem0MemoryStore:
    """The `MemoryStore` port on Mem0; calls run one at a time on one thread (local Qdrant).

    A call that outlives its caller's deadline keeps running on that thread, and later calls
    queue behind it, so the folder never sees two at once.
    """

    def __init__(self, memory: Any, locks: FactLocks | None = None) -> None:
        self._memory = memory
        self._locks: FactLocks = locks or ProcessFactLocks()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mem0")
        self._writes: set[asyncio.Task[Any]] = set()
        store = memory.vector_store
        # A local folder filters payloads point by point: keep each user's facts in memory.
        self._index = (
            LocalUserIndex(store.client, store.collection_name)
            if getattr(store, "is_local", False)
            else None
        )

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, partial(fn, *args, **kwargs))
        except UNAVAILABLE as exc:
            raise StoreUnavailable(f"memory: {exc.__class__.__name__}: {exc}", "memory") from exc

    async def _rows(self, user_id: str, **where: str) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = await self._call(self._rows_now, user_id, where)
        return rows

    def _rows_now(self, user_id: str, where: dict[str, str]) -> list[dict[str, Any]]:
        """On the memory thread: the user's facts whose metadata has the `where` values, as
        Mem0's `get_all` lists them, every one: `get_all` stops at its `top_k`."""
        if self._index is not None:
            return self._index.rows(user_id, where)
        store = self._memory.vector_store
        rows: list[dict[str, Any]] = []
        offset: Any = None
        while True:
            points, offset = store.client.scroll(
                store.collection_name,
                scroll_filter=_matching(user_id, where),
                limit=_PAGE,
                offset=offset,
                with_payload=True,
            )
            rows += [_row(str(point.id), dict(point.payload or {})) for point in points]
            if offset is None:
                return rows

    def _count_now(self, user_id: str, where: dict[str, str]) -> int:
        """On the memory thread: how many of the user's facts have the `where` values."""
        if self._index is not None:
            return len(self._index.rows(user_id, where))
        store = self._memory.vector_store
        found = store.client.count(
            store.collection_name, count_filter=_matching(user_id, where), exact=True
        )
        return int(found.count)

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> str | None:
        """Add the fact, or update the one with the same category and key (a correction); the
        text it replaced, read under the fact's lock."""
        was: str | None = await self._locked(
            user_id, category, key, partial(self._put_now, text=text)
        )
        return was

    async def forget_fact(self, user_id: str, category: str, key: str) -> str | None:
        """Delete the fact of that category and key, if there is one; the text it deleted."""
        was: str | None = await self._locked(user_id, category, key, self._forget_now)
        return was

    async def set_fact_if(
        self, user_id: str, category: str, key: str, *, holds: str | None, text: str | None
    ) -> bool:
        """The look and the change under the fact's lock: a write of the fact by another turn
        (another replica) waits until both are done."""
        change = partial(self._set_if_now, holds=holds, text=text)
        return bool(await self._locked(user_id, category, key, change))

    def _set_if_now(
        self, user_id: str, category: str, key: str, *, holds: str | None, text: str | None
    ) -> bool:
        same = self._rows_now(user_id, {"category": category, "key": key})
        if _text(same) != holds:
            return False
        if text is None:
            self._forget_now(user_id, category, key)
        elif holds != text:
            self._put_now(user_id, category, key, text=text)
        return True

    async def _locked(self, user_id: str, category: str, key: str, write: Any) -> Any:
        """`write(user_id, category, key)` on the memory thread, under the fact's lock: the look
        and the write of two replicas at once (two turns of the user) must not both find
        nothing and both add a fact. The lock is let go once the thread's write has ended,
        also when this caller stopped waiting for it (its store limit)."""
        task = asyncio.create_task(self._held(user_id, category, key, write))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.cancel()  # still waiting for the lock, or queued: then nothing is written
            raise

    async def _held(self, user_id: str, category: str, key: str, write: Any) -> Any:
        async with self._locks.held(user_id, category, key):
            written = self._thread.submit(write, user_id, category, key)
            try:
                return await asyncio.wrap_future(written)
            except UNAVAILABLE as exc:
                raise StoreUnavailable(
                    f"memory: {exc.__class__.__name__}: {exc}", "memory"
                ) from exc
            except asyncio.CancelledError:
                if not written.cancelled():  # on the thread already: hold on until it ends
                    ended = asyncio.wrap_future(written)
                    await asyncio.wait([ended])
                    failed = None if ended.cancelled() else ended.exception()
                    if failed is not None:
                        logger.warning("memory: a write its caller gave up on failed: %r", failed)
                raise

    def _forget_now(self, user_id: str, category: str, key: str) -> str | None:
        same = self._rows_now(user_id, {"category": category, "key": key})
        self._delete_now(user_id, same)
        return _text(same)

    def _delete_now(self, user_id: str, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            try:
                self._memory.delete(row["id"])
            finally:
                if self._index is not None:
                    self._index.forget(user_id)

    def _put_now(self, user_id: str, category: str, key: str, *, text: str) -> str | None:
        same = self._rows_now(user_id, {"category": category, "key": key})
        if same:
            # One point per fact: a read takes whichever point it finds, so the others (an id
            # Mem0 trimmed, "alice ", once added its own) go first; a put that fails midway
            # leaves an older text, never a newer one beside a stale one.
            self._delete_now(user_id, same[1:])
            self._write(user_id, self._memory.update, same[0]["id"], text=text)
            return _text(same)
        metadata = {"category": category, "key": key}
        self._write(
            user_id, self._memory.add, text, user_id=user_id, infer=False, metadata=metadata
        )
        return None

    def _write(self, owner: str, fn: Any, /, *args: Any, **kwargs: Any) -> None:
        """On the memory thread: a write, then the index takes the written point again."""
        written: list[str] = []
        try:
            result = fn(*args, **kwargs)
            if fn == self._memory.update:
                written = [str(args[0])]
            elif isinstance(result, dict):
                written = [str(r["id"]) for r in result.get("results", []) if "id" in r]
        finally:
            if self._index is not None:
                if written:
                    self._index.refresh(owner, written)
                else:  # failed, or said nothing of what it wrote
                    self._index.forget(owner)

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in `category`, by key."""
        rows = await self._rows(user_id, category=category)
        return {str(_meta(row).get("key")): row["memory"] for row in rows}

    async def count(self, user_id: str, category: str | None) -> int:
        """How many facts the user has, in one category or all."""
        return int(await self._call(self._count_now, user_id, _category(category)))

    async def list_facts(self, user_id: str, category: str | None, limit: int) -> list[MemoryFact]:
        """Up to `limit` facts, by category and key."""
        facts = [_fact(row) for row in await self._rows(user_id, **_category(category))]
        return sorted(facts, key=lambda f: (f.category, f.key))[:limit]

    async def search(
        self, user_id: str, query: str, category: str | None, limit: int
    ) -> list[MemoryFact]:
        """The `limit` nearest facts by vector search, nearest first."""
        # Straight to the vector store: Mem0's `search` drops hits under a similarity
        # threshold, so it cannot promise the `limit` nearest.
        if self._index is not None:
            found = await self._call(self._search_local, user_id, query, category, limit)
            return [_fact({"memory": p["data"], "metadata": p}) for p in found]
        vector = await self._call(self._memory.embedding_model.embed, query, "search")
        store = self._memory.vector_store
        # Our own filter, exact values only: Mem0's reads a value of "*" as "any", so
        # `category=*` searched every category of the user's (and `user_id="*"`, sent over
        # NATS, would have searched every user's facts).
        found = await self._call(
            store.client.query_points,
            collection_name=store.collection_name,
            query=vector,
            query_filter=_matching(user_id, _category(category)),
            limit=limit,
            with_payload=True,
        )
        return [_fact({"memory": p.payload["data"], "metadata": p.payload}) for p in found.points]

    def _search_local(
        self, user_id: str, query: str, category: str | None, limit: int
    ) -> list[dict[str, Any]]:
        assert self._index is not None
        vector = self._memory.embedding_model.embed(query, "search")
        return self._index.search(user_id, vector, category, limit)

    def close(self) -> None:
        """Wait for a call still running, then release the local Qdrant folder lock."""
        self._thread.shutdown(wait=True, cancel_futures=True)
        client = getattr(getattr(self._memory, "vector_store", None), "client", None)
        if client is not None:
            client.close()


def _matching(user_id: str, where: dict[str, str]) -> models.Filter:
    """The user's points whose payload has the `where` values."""
    wanted = {"user_id": user_id, **where}
    return models.Filter(
        must=[
            models.FieldCondition(key=name, match=models.MatchValue(value=value))
            for name, value in wanted.items()
        ]
    )


def _text(same: list[dict[str, Any]]) -> str | None:
    """What `facts` reads of a key whose points are `same`: the last one's text."""
    return str(same[-1]["memory"]) if same else None


def _row(point_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A point as `get_all` lists it: `id`, `memory` (the text), `metadata`."""
    return {"id": point_id, "memory": payload.get("data"), "metadata": payload}


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    return row.get("metadata") or {}


def _category(category: str | None) -> dict[str, str]:
    return {} if category is None else {"category": category}


def _fact(row: dict[str, Any]) -> MemoryFact:
    meta = _meta(row)
    return MemoryFact(
        category=str(meta.get("category", "")), key=str(meta.get("key", "")), text=row["memory"]
    )
