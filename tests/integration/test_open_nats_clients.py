"""The check after each test (`tests/open_nats_clients.py`) finds a NATS client the test left
open, says where it was made, and leaves alone one that a wider fixture keeps on purpose; and
a reconnect loop that outlived its client's close is ended."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client

from baton_messaging.embedded import EmbeddedNatsServer
from tests import open_nats_clients
from tests.held_ports import held_port

REPO = Path(__file__).resolve().parents[2]


async def quiet(_error: Exception) -> None:
    pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmbeddedNatsServer]:
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
async def kept(nats_url: str) -> AsyncIterator[Client]:
    """A client meant to outlive each test of this module."""
    nc = await nats.connect(nats_url)
    yield nc
    await nc.close()


async def test_a_client_left_open_is_found_with_the_line_that_made_it(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    try:
        [leak] = open_nats_clients.left_open()
        assert leak.client is nc
        assert f'{__file__}", line ' in leak.where, leak.where
        assert "in test_a_client_left_open_is_found_with_the_line_that_made_it" in leak.where
        assert "nc = await nats.connect(nats_url)" in leak.where
    finally:
        await nc.close()
    assert open_nats_clients.left_open() == []


async def test_a_client_that_failed_to_connect_is_not_counted() -> None:
    url = f"nats://127.0.0.1:{held_port()}"
    with pytest.raises(nats.errors.NoServersError):  # it left nothing running
        await nats.connect(url, max_reconnect_attempts=1, reconnect_time_wait=0, error_cb=quiet)
    assert open_nats_clients.left_open() == []


async def test_a_client_a_wider_fixture_keeps_is_not_counted(kept: Client) -> None:
    assert kept.is_connected
    assert open_nats_clients.left_open() == []


def test_the_test_that_leaves_a_client_open_fails_and_the_next_one_passes(
    nats_url: str, tmp_path: Path
) -> None:
    # The whole check as the suite meets it, in a pytest run of its own: the fixture in
    # tests/conftest.py fails the leaking test, and closes the client before the next one.
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import (  # noqa: F401\n"
        "    _no_nats_client_left_open, pytest_configure, pytest_fixture_setup,\n"
        ")\n"
    )
    (tmp_path / "test_leak.py").write_text(
        textwrap.dedent(f"""
            import nats

            async def test_leaks():
                LEFT.append(await nats.connect({nats_url!r}))

            def test_after():
                assert LEFT[0].is_closed

            LEFT = []
        """)
    )
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = session\n"
        "asyncio_default_test_loop_scope = session\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(tmp_path)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "ERROR at teardown of test_leaks" in run.stdout, run.stdout + run.stderr
    assert "1 NATS client(s) connected during this test were never closed" in run.stdout
    assert 'test_leak.py", line 5, in test_leaks' in run.stdout, run.stdout
    assert "2 passed, 1 error" in run.stdout, run.stdout


async def test_a_reconnect_loop_that_outlived_its_close_is_ended(
    server: EmbeddedNatsServer,
) -> None:
    nc = await nats.connect(
        server.url, max_reconnect_attempts=-1, reconnect_time_wait=0.05, error_cb=quiet
    )
    server.stop()
    await asyncio.sleep(0.3)  # retrying every 50 ms
    # The race made sure: the close finds no loop to cancel, as when its cancel is lost.
    loop, nc._reconnection_task = nc._reconnection_task, None
    await nc.close()
    nc._reconnection_task = loop
    await asyncio.sleep(0.2)
    assert nc.is_closed and open_nats_clients.reconnecting(nc)
    await open_nats_clients.end_reconnecting(nc)
    assert not open_nats_clients.reconnecting(nc)
