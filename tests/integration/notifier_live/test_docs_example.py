"""The WebSocket client in docs/live-events.md runs as written against a gateway."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from nats.aio.client import Client

from baton_notifier.domain.live import CLOSE_INTERNAL, INTERNAL_REASON
from baton_notifier.service.live import LiveSession

from .conftest import Gateway, new_user, publish, step_changed, token

DOC = Path(__file__).parents[3] / "docs" / "live-events.md"


async def _run_example(gateway: Gateway, user: str, max_events: int, last_seq: int | None = None):
    example = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    env = {
        **os.environ,
        "BATON_GATEWAY": f"ws://127.0.0.1:{gateway.port}",
        "BATON_TOKEN": token(user),
        "MAX_EVENTS": str(max_events),
    }
    env.pop("LAST_SEQ", None)
    if last_seq is not None:
        env["LAST_SEQ"] = str(last_seq)
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", example, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def _session_of(gateway: Gateway, user: str, not_: object = None) -> LiveSession:
    assert gateway.notifier.live is not None
    for _ in range(1000):
        for session in gateway.notifier.live.hub.sessions():
            if session.filter.user_id == user and session is not not_:
                return session
        await asyncio.sleep(0.01)
    raise AssertionError(f"no live session of {user}")


async def test_the_docs_client_replays_from_last_seq(gateway: Gateway, nc: Client) -> None:
    ola = new_user("ola")
    seqs = [await publish(nc, step_changed(ola, "ola-i", n)) for n in range(2)]
    process = await _run_example(gateway, ola, 2, last_seq=seqs[0] - 1)
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()
    assert out.decode().splitlines() == [f"{s} workflow.step_changed ola-i" for s in seqs]


async def test_the_docs_client_misses_nothing_when_dropped_before_its_first_event(
    gateway: Gateway, nc: Client
) -> None:
    # Started without LAST_SEQ, it had no position until an event of its own arrived: the
    # event published while it was reconnecting was lost (found by a review of the live feed).
    # The `ready` frame now says where the stream stands, and the example resumes from there.
    pia = new_user("pia")
    process = await _run_example(gateway, pia, 2)
    first = await _session_of(gateway, pia)
    await asyncio.sleep(0.3)  # its `ready` is sent
    first.end(CLOSE_INTERNAL, INTERNAL_REASON)  # 1011: "reconnect with last_seq"
    missed = await publish(nc, step_changed(pia, "pia-i", 0))  # while it waits to reconnect
    await _session_of(gateway, pia, not_=first)
    await asyncio.sleep(0.3)
    later = [await publish(nc, step_changed(pia, "pia-i", n)) for n in (1, 2)]
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()
    assert [int(line.split()[0]) for line in out.decode().splitlines()] == [missed, later[0]]


async def test_the_docs_client_waits_out_a_gateway_that_is_down(
    gateway: Gateway, nc: Client
) -> None:
    # Its reconnect found the gateway still down (connection refused) and it died with a
    # traceback, never to resume.
    qin = new_user("qin")
    process = await _run_example(gateway, qin, 1)
    await _session_of(gateway, qin)
    await gateway.stop()  # closes with 1001, and stays down
    await asyncio.sleep(3)
    try:
        assert process.returncode is None
    finally:
        process.kill()
        _, err = await process.communicate()
    assert "gateway unreachable" in err.decode() and "Traceback" not in err.decode()
