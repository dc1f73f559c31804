"""A SQLite connection that opened read-only is not kept in the pool.

SQLite opens a file it may not write (its folder or file read-only at that moment: a disk
remounted read-only, a restart during it) read-only without a word, and that connection
stays so after the disk is writable again. Seen with `baton up`: an agent-runner restarted
while its data dir was unwritable answered every turn `unavailable` (`attempt to write a
readonly database`) long after the dir was restored, its health `SELECT 1` still passing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from baton_eventstore import create_engine
from baton_eventstore.unavailable import is_unavailable


async def test_a_connection_that_cannot_write_is_replaced_after_its_failure(
    tmp_path: Path,
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}")
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (x INTEGER)"))
    await engine.dispose()  # the next connection is a new one: read-only, as if the disk were
    opened: list[int] = []

    @event.listens_for(engine.sync_engine, "connect")
    def _read_only_once(dbapi_connection: Any, _record: Any) -> None:
        opened.append(1)
        if len(opened) == 1:  # SQLite's own read-only fallback fails writes with this message
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA query_only=ON")
            cursor.close()

    with pytest.raises(Exception) as caught:
        async with engine.begin() as conn:
            await conn.execute(text("INSERT INTO t VALUES (1)"))
    assert "readonly database" in str(caught.value) and is_unavailable(caught.value)
    async with engine.begin() as conn:  # the disk is fine again: so is the next write
        await conn.execute(text("INSERT INTO t VALUES (2)"))
    async with engine.connect() as conn:
        assert (await conn.execute(text("SELECT x FROM t"))).scalars().all() == [2]
    await engine.dispose()
