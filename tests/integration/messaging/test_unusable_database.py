"""A service whose database can never be used stops at once with one line, exit status 2.

Each service runs as its own process, as `baton up` or an orchestrator starts it. The line
names the setting, the database (its password hidden) and the problem; no traceback, and the
file it was pointed at is left exactly as it was.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from ...conftest import postgres_admin_url

SERVICES = {
    # module, the name it gives itself, extra settings (under tmp_path)
    "workflow": ("baton_workflow", "workflow", {}),
    "agent-runner": ("baton_agent_runner", "agent-runner", {"BATON_QDRANT_PATH": "{tmp}/q"}),
}


def start(owner: str, database_url: str, nats_url: str, tmp_path: Path) -> tuple[int, str]:
    """Run the service until it exits; its exit status and its stderr."""
    module, _, extra = SERVICES[owner]
    env = {
        **os.environ,
        "BATON_NATS_URL": nats_url,
        "BATON_DATABASE_URL": database_url,
        **{name: value.format(tmp=tmp_path) for name, value in extra.items()},
    }
    run = subprocess.run(
        [sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=120
    )
    return run.returncode, run.stderr


def said(owner: str, database: str, problem: str) -> str:
    return f"{SERVICES[owner][1]}: BATON_DATABASE_URL: cannot use {database}: {problem}"


@pytest.mark.parametrize("owner", sorted(SERVICES))
def test_a_file_that_is_not_a_database_is_named_and_left_as_it_was(
    owner: str, nats_url: str, tmp_path: Path
) -> None:
    garbage = tmp_path / "workflow.db"
    content = os.urandom(16384)
    garbage.write_bytes(content)
    url = f"sqlite+aiosqlite:///{garbage}"

    status, stderr = start(owner, url, nats_url, tmp_path)

    assert (status, stderr.splitlines()) == (
        2,
        [said(owner, url, "the file is not a SQLite database")],
    )
    assert garbage.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("workflow")) == [
        "workflow.db"  # no -wal or -shm file beside it either
    ]


@pytest.mark.parametrize("owner", sorted(SERVICES))
def test_a_folder_that_cannot_be_created_is_named(
    owner: str, nats_url: str, tmp_path: Path
) -> None:
    (tmp_path / "plain").write_text("a file where the folder should be")
    url = f"sqlite+aiosqlite:///{tmp_path}/plain/data/service.db"

    status, stderr = start(owner, url, nats_url, tmp_path)

    problem = f"its folder {tmp_path}/plain/data cannot be created: Not a directory"
    assert (status, stderr.splitlines()) == (2, [said(owner, url, problem)])


@pytest.mark.parametrize("owner", sorted(SERVICES))
def test_a_read_only_database_is_named(owner: str, nats_url: str, tmp_path: Path) -> None:
    # `mode=ro`: chmod does not stop root, which CI may run as.
    readonly = tmp_path / "service.db"
    with closing(sqlite3.connect(readonly)) as db:
        db.execute("CREATE TABLE kept (x)")
        db.commit()
    content = readonly.read_bytes()
    url = f"sqlite+aiosqlite:///file:{readonly}?mode=ro&uri=true"

    status, stderr = start(owner, url, nats_url, tmp_path)

    # Named as written: no password to hide, so not re-rendered (which escapes `file:`).
    assert (status, stderr.splitlines()) == (2, [said(owner, url, "the file cannot be written")])
    assert readonly.read_bytes() == content


@pytest.mark.postgres
@pytest.mark.parametrize("owner", sorted(SERVICES))
def test_a_postgres_database_that_does_not_exist_is_named(
    owner: str, nats_url: str, tmp_path: Path
) -> None:
    name = f"baton_missing_{uuid.uuid4().hex[:12]}"
    url = make_url(postgres_admin_url()).set(database=name)
    url_text = url.render_as_string(hide_password=False)

    status, stderr = start(owner, url_text, nats_url, tmp_path)

    shown = url.render_as_string(hide_password=True)
    problem = f'database "{name}" does not exist'
    assert (status, stderr.splitlines()) == (2, [said(owner, shown, problem)])
    if url.password:
        assert str(url.password) not in stderr


@pytest.mark.postgres
@pytest.mark.parametrize("owner", sorted(SERVICES))
def test_a_read_only_postgres_database_is_named(
    owner: str, postgres_url: str, nats_url: str, tmp_path: Path
) -> None:
    # A hot standby (or `default_transaction_read_only`) refuses the tables' creation with
    # SQLSTATE 25006: a traceback and exit status 1, restarted by `baton up` five times
    # (found by a review of the migrations).
    asyncio.run(_read_only(postgres_url))

    status, stderr = start(owner, postgres_url, nats_url, tmp_path)

    shown = make_url(postgres_url).render_as_string(hide_password=True)
    [line] = stderr.splitlines()
    assert status == 2 and line.startswith(said(owner, shown, "")), stderr
    assert "read-only transaction" in line


async def _read_only(url: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    parsed = make_url(url)
    dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(
            f'ALTER DATABASE "{parsed.database}" SET default_transaction_read_only = on'
        )
    finally:
        await conn.close()
