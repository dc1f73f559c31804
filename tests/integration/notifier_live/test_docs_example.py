"""The WebSocket client in docs/live-events.md runs as written against a gateway."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from nats.aio.client import Client

from .conftest import Gateway, new_user, publish, step_changed, token

DOC = Path(__file__).parents[3] / "docs" / "live-events.md"


async def test_the_docs_client_replays_from_last_seq(gateway: Gateway, nc: Client) -> None:
    ola = new_user("ola")
    seqs = [await publish(nc, step_changed(ola, "ola-i", n)) for n in range(2)]
    example = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    env = {
        **os.environ,
        "BATON_GATEWAY": f"ws://127.0.0.1:{gateway.port}",
        "BATON_TOKEN": token(ola),
        "LAST_SEQ": str(seqs[0] - 1),
        "MAX_EVENTS": "2",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", example, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()
    assert out.decode().splitlines() == [f"{s} workflow.step_changed ola-i" for s in seqs]
