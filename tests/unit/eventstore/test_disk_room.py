"""`disk_has_room`: a SQLite file's disk with less than a MiB free counts as full; the check
does not apply to PostgreSQL nor to an in-memory database."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton_eventstore import create_engine
from baton_eventstore.disk_room import MIN_FREE_BYTES, DiskUsage, disk_has_room, with_disk_room


def free(n: int) -> DiskUsage:
    return DiskUsage(total=10 << 30, used=(10 << 30) - n, free=n)


@pytest.mark.parametrize(("left", "room"), [(MIN_FREE_BYTES, True), (MIN_FREE_BYTES - 1, False)])
async def test_a_sqlite_file_has_room_while_a_mib_is_free(
    tmp_path: Path, left: int, room: bool
) -> None:
    asked: list[Path] = []

    def usage(folder: Path) -> DiskUsage:
        asked.append(folder)
        return free(left)

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/data/w.db")
    try:
        assert disk_has_room(engine, usage=usage) is room
    finally:
        await engine.dispose()
    assert asked == [tmp_path / "data"]  # the file's own folder: its disk, not the cwd's


@pytest.mark.parametrize(
    "url",
    [
        "sqlite+aiosqlite://",
        "sqlite+aiosqlite:///:memory:",
        "postgresql+asyncpg://postgres@127.0.0.1:5432/test",
    ],
)
async def test_the_check_does_not_apply_without_a_sqlite_file(url: str) -> None:
    engine = create_engine(url)
    try:
        assert disk_has_room(engine, usage=lambda _: free(0)) is None
        assert with_disk_room({"database": True}, engine) == {"database": True}
    finally:
        await engine.dispose()


async def test_a_folder_that_cannot_be_read_is_left_to_the_database_check(tmp_path: Path) -> None:
    def unreadable(_: Path) -> DiskUsage:
        raise PermissionError("denied")

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/w.db")
    try:
        assert disk_has_room(engine, usage=unreadable) is None
    finally:
        await engine.dispose()
