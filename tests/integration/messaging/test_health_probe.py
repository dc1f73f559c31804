"""The health probe command answers 0 for a healthy owner and 1 for a silent one."""

from __future__ import annotations

import asyncio
import os
import sys

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
from baton_messaging import MessagingSettings, build_broker, respond, start_broker
from tests.held_ports import held_port


async def probe(owner: str, nats_url: str) -> tuple[int, str]:
    # Async: the responder under test runs on this same event loop.
    env = {**os.environ, "BATON_NATS_URL": nats_url, "BATON_REQUEST_TIMEOUT_SECONDS": "0.5"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "baton_messaging.health", owner, env=env,
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode().strip()


async def test_probe_reports_a_healthy_owner_and_a_silent_one(nats_url: str) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "trigger")

    async def healthy(_: Query) -> HealthStatus:
        return HealthStatus(service="trigger", healthy=True, checks={"database": True})

    respond(broker, HEALTH_QUERIES["trigger"], healthy, queue="trigger")
    await start_broker(broker)
    try:
        assert await probe("trigger", nats_url) == (0, "trigger: healthy {'database': True}")
        code, out = await probe("space", nats_url)
        assert code == 1 and out.startswith("space: unreachable")
        assert (await probe("nobody", nats_url))[0] == 2
    finally:
        await broker.stop()


async def test_probe_without_a_nats_server_says_so_in_one_line_and_fails() -> None:
    # nats-py retries a refused first connect without end: the probe hung, printing a
    # traceback every two seconds, until something killed it.
    code, out = await probe("workflow", f"nats://127.0.0.1:{held_port()}")
    assert code == 1
    assert out.startswith("workflow: unreachable: ") and "cannot reach NATS at nats://127.0" in out
    assert "\n" not in out
