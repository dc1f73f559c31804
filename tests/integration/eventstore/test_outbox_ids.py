"""Outbox ids are never reused, on a new SQLite store and on one made before that rule."""

from __future__ import annotations

import uuid
from pathlib import Path

from baton_eventstore import NewEvent, OutboxMessage, SqlEventStore


def ev(n: int) -> NewEvent:
    return NewEvent(uuid.uuid4(), "t.happened", {"n": n}, publish=OutboxMessage(f"t.{n}", b"{}"))


async def _outbox_ddl(store: SqlEventStore) -> str:
    async with store.engine.connect() as conn:
        found = await conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'outbox'")
        return str(found.scalar())


async def test_an_emptied_sqlite_outbox_gives_the_next_row_a_new_id(tmp_path: Path) -> None:
    store = await SqlEventStore.from_url(f"sqlite+aiosqlite:///{tmp_path / 'a.db'}")
    try:
        await store.append("s", 0, [ev(0)])
        [first] = await store.outbox.fetch(10)
        await store.outbox.delete([first.id])
        await store.append("s", 1, [ev(1)])
        [second] = await store.outbox.fetch(10)
        assert second.id > first.id
    finally:
        await store.close()


async def test_an_outbox_made_before_the_rule_is_rebuilt_with_its_rows(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    store = await SqlEventStore.from_url(url)
    try:
        await store.append("s", 0, [ev(0)])
        async with store.engine.begin() as conn:  # as version 1 made it: no AUTOINCREMENT
            ddl = await _outbox_ddl(store)
            old = ddl.replace(" AUTOINCREMENT", "")
            await conn.exec_driver_sql(old.replace("CREATE TABLE outbox", "CREATE TABLE o2"))
            await conn.exec_driver_sql("INSERT INTO o2 SELECT * FROM outbox")
            await conn.exec_driver_sql("DROP TABLE outbox")
            await conn.exec_driver_sql("ALTER TABLE o2 RENAME TO outbox")
            await conn.exec_driver_sql(
                "UPDATE baton_schema SET version = 1 WHERE component = 'eventstore'"
            )
        assert "AUTOINCREMENT" not in await _outbox_ddl(store)
    finally:
        await store.close()
    store = await SqlEventStore.from_url(url)  # migrates to version 2
    try:
        assert "AUTOINCREMENT" in await _outbox_ddl(store)
        assert [row.subject for row in await store.outbox.fetch(10)] == ["t.0"]
    finally:
        await store.close()
