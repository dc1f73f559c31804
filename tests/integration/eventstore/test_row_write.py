"""A read row written with its events: one commit, or nothing at all (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    func,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB

from baton_eventstore import (
    ConcurrencyConflict,
    NewEvent,
    OutboxMessage,
    RowConflict,
    RowWrite,
    SqlEventStore,
)
from baton_eventstore.tables import outbox

metadata = MetaData()
things = Table(
    "things",
    metadata,
    Column("thing_id", String(64), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("doc", JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    Index(
        "ux_things_live",
        "owner",
        unique=True,
        sqlite_where=text("state = 'live'"),
        postgresql_where=text("state = 'live'"),
    ),
)
AT = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(database_url)
    async with store.engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
    yield store
    await store.close()


def ev(n: int) -> NewEvent:
    message = OutboxMessage(f"test.evt.{n}", b"%d" % n, {})
    return NewEvent(uuid.uuid4(), "thing.changed", {"n": n}, publish=message)


def row(thing: str, version: int, state: str = "live", owner: str = "ann", **doc: Any) -> RowWrite:
    values = {"owner": owner, "state": state, "doc": doc, "version": version, "changed_at": AT}
    return RowWrite(things, {"thing_id": thing}, values, create=version == 1)


async def read(store: SqlEventStore) -> list[dict[str, Any]]:
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(things).order_by(things.c.thing_id))).mappings()
        return [{k: v for k, v in r.items() if k != "changed_at"} for r in rows]


async def outbox_rows(store: SqlEventStore) -> int:
    async with store.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(outbox))).scalar_one())


async def test_a_new_row_and_its_update_are_written_with_the_events(store: SqlEventStore) -> None:
    await store.append("thing-a", 0, [ev(1)], row("a", 1, tags=["x"], note="naïve ☃"))
    await store.append("thing-a", 1, [ev(2), ev(3)], row("a", 3, state="done", tags=[]))
    assert await read(store) == [
        {"thing_id": "a", "owner": "ann", "state": "done", "doc": {"tags": []}, "version": 3}
    ]
    assert await store.stream_version("thing-a") == 3
    assert await outbox_rows(store) == 3


async def test_a_stale_version_writes_neither_events_nor_row(store: SqlEventStore) -> None:
    await store.append("thing-b", 0, [ev(1)], row("b", 1))
    await store.append("thing-b", 1, [ev(2)], row("b", 2, note="kept"))
    with pytest.raises(ConcurrencyConflict):
        await store.append("thing-b", 1, [ev(3)], row("b", 2, state="lost"))
    with pytest.raises(ConcurrencyConflict):  # past the head: the guard refuses, no gap
        await store.append("thing-b", 5, [ev(4)], row("b", 6, state="lost"))
    [stored] = await read(store)
    assert (stored["state"], stored["doc"], stored["version"]) == ("live", {"note": "kept"}, 2)
    assert await store.stream_version("thing-b") == 2
    assert await outbox_rows(store) == 2


async def test_a_row_breaking_a_unique_key_rolls_the_events_back(store: SqlEventStore) -> None:
    await store.append("thing-c", 0, [ev(1)], row("c", 1, owner="bob"))
    with pytest.raises(RowConflict) as caught:  # bob already has a live thing
        await store.append("thing-d", 0, [ev(2)], row("d", 1, owner="bob"))
    assert caught.value.table == "things"
    assert await store.stream_version("thing-d") == 0
    assert [r["thing_id"] for r in await read(store)] == ["c"]
    assert await outbox_rows(store) == 1
    await store.append("thing-d", 0, [ev(3)], row("d", 1, owner="bob", state="idle"))
    assert [r["thing_id"] for r in await read(store)] == ["c", "d"]


def test_a_row_write_names_columns_its_table_lacks() -> None:
    with pytest.raises(ValueError, match="things: no column\\(s\\) colour, size"):
        RowWrite(things, {"thing_id": "x"}, {"size": 1, "colour": "red"}, create=True)
    with pytest.raises(ValueError, match="needs its key columns"):
        RowWrite(things, {}, {"owner": "x"}, create=False)
