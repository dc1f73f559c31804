"""A NATS server that cannot serve a service is refused at start: one older than 2.10, or one
taking smaller messages than the service publishes.

The workflow service's relay publishes outbox rows of up to what an append takes, in order:
on a server configured with a smaller `max_payload`, the first such row was refused for ever
and held every later event of every user behind it. The service now stops at start with one
line naming `BATON_NATS_URL` and both sizes, before anything is stored or published.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from baton_eventstore import RELAY_PAYLOAD_BYTES
from baton_messaging.broker import ServerUnfit, check_server
from baton_messaging.embedded import nats_server_binary
from tests.held_ports import held_port


@pytest.fixture
def small_nats(tmp_path: Path) -> Iterator[str]:
    """A nats-server with JetStream whose messages carry at most 64 KiB."""
    port = held_port()
    config = tmp_path / "nats.conf"
    config.write_text(
        f'listen: "127.0.0.1:{port}"\nmax_payload: 65536\n'
        f'jetstream {{ store_dir: "{tmp_path / "js"}" }}\n'
    )
    server = subprocess.Popen(
        [str(nats_server_binary()), "-c", str(config), "-l", str(tmp_path / "nats.log")],
        stdin=subprocess.DEVNULL,
    )
    try:
        yield f"nats://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


def test_the_workflow_service_refuses_a_server_that_takes_smaller_messages(
    small_nats: str, tmp_path: Path
) -> None:
    database = tmp_path / "workflow.db"
    env = {
        **os.environ,
        "BATON_NATS_URL": small_nats,
        "BATON_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
    }
    run = subprocess.run(
        [sys.executable, "-m", "baton_workflow"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "workflow: BATON_NATS_URL: the NATS server takes messages of at most 65,536 bytes "
        f"(its max_payload), and this service publishes up to {RELAY_PAYLOAD_BYTES:,}: set "
        f"max_payload to at least {RELAY_PAYLOAD_BYTES:,} in the server's configuration"
    )


OLD_NATS = shutil.which("nats-server", path="/usr/sbin:/usr/bin")
"""Debian's nats-server, 2.9 on these machines (the project's own, from PyPI, is newer)."""


def old_version() -> str | None:
    if OLD_NATS is None:
        return None
    said = subprocess.run([OLD_NATS, "--version"], capture_output=True, text=True).stdout
    return said.strip().removeprefix("nats-server: v")


OLD_VERSION = old_version()


@pytest.mark.skipif(
    OLD_VERSION is None or not OLD_VERSION.startswith("2.9."),
    reason="no nats-server 2.9 on this machine",
)
@pytest.mark.parametrize("module", ["baton_workflow", "baton_agent_runner"])
def test_a_service_refuses_a_nats_server_older_than_2_10(module: str, tmp_path: Path) -> None:
    # On 2.9 a consumer filtered on several subjects kept no filter: the agent-runner got
    # every event of the stream, logged thousands of errors a minute, and lagged behind.
    assert OLD_NATS is not None
    port = held_port()
    server = subprocess.Popen(
        [OLD_NATS, "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", str(tmp_path / "js")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    env = {
        **os.environ,
        "BATON_NATS_URL": f"nats://127.0.0.1:{port}",
        "BATON_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'service.db'}",
        "BATON_QDRANT_PATH": str(tmp_path / "qdrant"),
    }
    try:
        run = subprocess.run(
            [sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        server.terminate()
        server.wait(10)

    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1].endswith(
        f"BATON_NATS_URL: the NATS server is version {OLD_VERSION}; Baton needs 2.10 or "
        "later, with JetStream"
    )


def test_a_server_that_does_not_say_its_version_is_tried() -> None:
    check_server(None, 1024 * 1024, RELAY_PAYLOAD_BYTES)
    check_server((2, 10, 0), 1024 * 1024, RELAY_PAYLOAD_BYTES)
    with pytest.raises(ServerUnfit, match="version 2.9.25; Baton needs 2.10"):
        check_server((2, 9, 25), 1024 * 1024)


@pytest.fixture
def nats_without_jetstream(tmp_path: Path) -> Iterator[str]:
    """A nats-server started without -js, as an operator may start one."""
    port = held_port()
    server = subprocess.Popen(
        [str(nats_server_binary()), "-a", "127.0.0.1", "-p", str(port),
         "-l", str(tmp_path / "nats.log")],
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield f"nats://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("module", ["baton_workflow", "baton_agent_runner"])
def test_a_service_refuses_a_nats_server_without_jetstream(
    module: str, nats_without_jetstream: str, tmp_path: Path
) -> None:
    # It exited 1 with a traceback ending `StreamDeclarationError: stream WORKFLOW_EVT (...):
    # None`: nothing said JetStream was missing, nor which setting to look at.
    env = {
        **os.environ,
        "BATON_NATS_URL": nats_without_jetstream,
        "BATON_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'service.db'}",
        "BATON_QDRANT_PATH": str(tmp_path / "qdrant"),
    }
    run = subprocess.run(
        [sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=120
    )

    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1].endswith(
        ": BATON_NATS_URL: the NATS server has no JetStream (nothing answers its JetStream "
        "API); Baton needs it: start nats-server with -js, or give its configuration a "
        "jetstream block"
    )
    assert "Traceback" not in run.stderr
