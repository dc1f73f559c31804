"""`HealthProber`'s NATS probe: an unreachable NATS is "not healthy" at once, not a long wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

from baton_cli.health import PROBE_TIMEOUT, HealthProber
from baton_cli.services import SERVICES, NatsHealth, Runtime
from tests.held_ports import held_port


async def test_a_probe_of_an_unreachable_nats_answers_false_within_its_timeout() -> None:
    nats_url = f"nats://127.0.0.1:{held_port()}"  # nothing listens there
    runtime = Runtime(
        data_dir=Path("/data"), nats_url=nats_url, jwt_secret="s" * 40,
        http_host="127.0.0.1", http_port=held_port(),
    )  # fmt: skip
    spec = next(s for s in SERVICES if isinstance(s.health, NatsHealth))
    prober = HealthProber(runtime)
    try:
        # nats-py alone retries a refused connect every 2 s, 60 times: the probe must not.
        async with asyncio.timeout(PROBE_TIMEOUT * 3):
            assert await prober.healthy(spec) is False
            assert await prober.healthy(spec) is False
    finally:
        await prober.close()
