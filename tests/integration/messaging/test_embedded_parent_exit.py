"""An embedded nats-server with `parent_exit_grace` does not outlive a killed parent for long."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nats
import pytest
from nats.aio.msg import Msg

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's prctl")

PARENT = """
import json, sys, time
from pathlib import Path
from baton_messaging.embedded import EmbeddedNatsServer
grace = None if sys.argv[2] == "none" else float(sys.argv[2])
server = EmbeddedNatsServer(store_dir=Path(sys.argv[1]), parent_exit_grace=grace)
server.start()
print(json.dumps({"pid": server.pid, "url": server.url}), flush=True)
time.sleep(600)
"""

BOUND = 20.0
"""Seconds any wait below may take before the test fails (a bound, not a measurement)."""


def start_parent(store: Path, grace: float | None) -> tuple[subprocess.Popen[str], int, str]:
    """A process that starts nats-server and then only sleeps; its server's pid and URL."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(store), "none" if grace is None else str(grace)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    started = json.loads(parent.stdout.readline())
    return parent, started["pid"], started["url"]


def is_running(pid: int) -> bool:
    """True while `pid` runs and is no zombie (an orphan is reaped by init, not by this test)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pid: int) -> float:
    """Seconds until `pid` is gone."""
    began = time.monotonic()
    while is_running(pid):
        assert time.monotonic() - began < BOUND, f"nats-server {pid} still runs"
        time.sleep(0.02)
    return time.monotonic() - began


def kill_all(*pids: int) -> None:
    for pid in pids:
        if is_running(pid):
            os.kill(pid, signal.SIGKILL)


def test_the_server_of_a_killed_parent_with_no_client_exits_at_once(tmp_path: Path) -> None:
    parent, pid, _ = start_parent(tmp_path / "nats", grace=30.0)
    try:
        parent.kill()  # SIGKILL: the parent runs no cleanup at all
        parent.wait()
        assert wait_gone(pid) < 10.0  # far below the 30 s: nobody was connected to wait for
    finally:
        kill_all(pid)


async def test_a_connected_client_is_answered_for_the_grace_then_the_server_exits(
    tmp_path: Path,
) -> None:
    parent, pid, url = start_parent(tmp_path / "nats", grace=2.0)
    client = await nats.connect(url, allow_reconnect=False)

    async def echo(msg: Msg) -> None:
        await msg.respond(msg.data)

    try:
        await client.subscribe("echo", cb=echo)
        parent.kill()
        parent.wait()
        await asyncio.sleep(0.3)  # the signal reaches the server: it is in lame duck mode
        assert (await client.request("echo", b"still here", timeout=2)).data == b"still here"
        gone = await asyncio.to_thread(wait_gone, pid)
        assert gone > 1.0  # it gave the connected client its grace before closing
    finally:
        await asyncio.wait_for(client.close(), BOUND)
        kill_all(pid)


def test_without_a_grace_the_server_outlives_its_parent(tmp_path: Path) -> None:
    parent, pid, _ = start_parent(tmp_path / "nats", grace=None)
    try:
        parent.kill()
        parent.wait()
        time.sleep(1.0)
        assert is_running(pid)  # as before: whoever started it stops it
    finally:
        kill_all(pid)
