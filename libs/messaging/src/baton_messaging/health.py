"""`python -m baton_messaging.health <owner>`: exit 0 when that service answers healthy on NATS.

For container healthchecks and operators; reads `BATON_NATS_URL` like the services do.
"""

from __future__ import annotations

import asyncio
import sys

import nats
from nats.aio.client import Client

from baton_contracts import HEALTH_QUERIES, ErrorCode, HealthStatus, RemoteError
from baton_messaging.nats_url import shown_nats_url
from baton_messaging.requests import request
from baton_messaging.setting_problems import settled
from baton_messaging.settings import MessagingSettings


async def _quiet(_error: Exception) -> None:
    """nats-py logs a traceback for each failed connect; a probe says it in one line."""


async def connect_once(nats_url: str, timeout: float) -> Client:
    """A connection within `timeout` that never reconnects, for a probe (this command's, and
    `baton up`'s); `RemoteError` (unavailable) saying where it failed otherwise."""
    try:
        # Bounded from outside: nats-py retries a refused first connect every 2 s, for good
        # unless `max_reconnect_attempts` is positive (0, as here before, meant no end).
        async with asyncio.timeout(timeout):
            return await nats.connect(
                nats_url, connect_timeout=timeout, allow_reconnect=False, error_cb=_quiet
            )
    except (OSError, nats.errors.Error) as exc:  # TimeoutError is an OSError
        reason = str(exc) or f"no answer within {timeout:g}s"
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE, f"cannot reach NATS at {shown_nats_url(nats_url)}: {reason}"
        ) from None


async def probe(owner: str, nats_url: str, timeout: float) -> HealthStatus:
    """Ask `<owner>.query.health` once."""
    nc = await connect_once(nats_url, timeout)
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
