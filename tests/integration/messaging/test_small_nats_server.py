"""A NATS server that takes smaller messages than a service publishes is refused at start.

The workflow service's relay publishes outbox rows of up to what an append takes, in order:
on a server configured with a smaller `max_payload`, the first such row was refused for ever
and held every later event of every user behind it. The service now stops at start with one
line naming `BATON_NATS_URL` and both sizes, before anything is stored or published.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from baton_eventstore import RELAY_PAYLOAD_BYTES
from baton_messaging.embedded import free_port, nats_server_binary


@pytest.fixture
def small_nats(tmp_path: Path) -> Iterator[str]:
    """A nats-server with JetStream whose messages carry at most 64 KiB."""
    port = free_port()
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
