"""`python -m baton_messaging.health <owner>`: exit 0 when that service answers healthy on NATS.

For container healthchecks and operators; reads `BATON_NATS_URL` like the services do.
"""

from __future__ import annotations

import asyncio
import sys

import nats

from baton_contracts import HEALTH_QUERIES, HealthStatus, RemoteError
from baton_messaging.broker import MessagingSettings
from baton_messaging.process import settled
from baton_messaging.requests import request


async def probe(owner: str, nats_url: str, timeout: float) -> HealthStatus:
    """Ask `<owner>.query.health` once."""
    nc = await nats.connect(nats_url, connect_timeout=timeout, max_reconnect_attempts=0)
    try:
        query = HEALTH_QUERIES[owner].model_validate({})
        reply = await request(nc, query, timeout=timeout)
    finally:
        await nc.close()
    assert isinstance(reply, HealthStatus)
    return reply


def main(argv: list[str] | None = None) -> int:
    """The command; prints one line and returns the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] not in HEALTH_QUERIES:
        print(f"usage: python -m baton_messaging.health {{{','.join(sorted(HEALTH_QUERIES))}}}")
        return 2
    settings = settled(args[0], MessagingSettings)
    try:
        status = asyncio.run(probe(args[0], settings.nats_url, settings.request_timeout_seconds))
    except (RemoteError, OSError, nats.errors.Error) as exc:
        print(f"{args[0]}: unreachable: {exc}")
        return 1
    print(f"{args[0]}: {'healthy' if status.healthy else 'unhealthy'} {status.checks}")
    return 0 if status.healthy else 1


if __name__ == "__main__":
    sys.exit(main())
