"""SQLite: a process's own writers queue on a lock, never in SQLite's sleeping busy handler.

With the busy timeout at zero, a writer that meets another one fails at once with "database
is locked" instead of sleeping; so these tests fail whenever two of the process's writes
(appends, relay deletes, leases) reach SQLite at the same time.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from baton_eventstore import NewEvent, OutboxMessage, SqlEventStore

from ...sqlite_engines import impatient_sqlite_engine


def _impatient_store(path: Path) -> SqlEventStore:
    return SqlEventStore(impatient_sqlite_engine(path))


def _published(n: int) -> NewEvent:
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n}, publish=OutboxMessage("t.evt", b"{}"))


async def test_concurrent_appends_deletes_and_leases_all_succeed(tmp_path: Path) -> None:
    store = _impatient_store(tmp_path / "store.db")
    await store.migrate()
    try:
        for n in range(20):
            await store.append(f"old-{n}", 0, [_published(n)])
        old = [row.id for row in await store.outbox.fetch(20)]
        writes = [store.append(f"s-{n}", 0, [_published(n)]) for n in range(40)]
        writes += [store.outbox.delete([row_id]) for row_id in old]
        writes += [store.outbox.acquire_lease(f"lease-{n}", "me", 10) for n in range(10)]
        await asyncio.gather(*writes)
        assert await store.outbox.count() == 40
        for n in range(40):
            assert await store.stream_version(f"s-{n}") == 1
    finally:
        await store.close()


async def test_a_transaction_holds_off_other_writers_until_it_ends(tmp_path: Path) -> None:
    store = _impatient_store(tmp_path / "store.db")
    await store.migrate()
    try:
        async with store.transaction() as tx:
            await tx.append("held", 0, [_published(0)])
            other = asyncio.create_task(store.append("waiting", 0, [_published(1)]))
            await asyncio.sleep(0.05)  # the other writer is queued, not failed
            assert not other.done()
        await other
        assert await store.stream_version("waiting") == 1
    finally:
        await store.close()
