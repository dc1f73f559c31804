"""A stand-in for a NATS-only service: answers `trigger.query.health` on BATON_NATS_URL.

It writes the BATON_* variables it was started with to `$BATON_DATA_DIR/fake-backend-env.json`,
so a test can see exactly what `baton up` handed it.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import nats
from nats.aio.msg import Msg

from baton_contracts import HEALTH_QUERIES, HealthStatus, ReplyOk


def record_env() -> None:
    env = {key: value for key, value in os.environ.items() if key.startswith("BATON_")}
    Path(os.environ["BATON_DATA_DIR"], "fake-backend-env.json").write_text(json.dumps(env))


async def main() -> None:
    client = await nats.connect(os.environ["BATON_NATS_URL"])
    subject = HEALTH_QUERIES["trigger"].subject.base

    async def health(msg: Msg) -> None:
        status = HealthStatus(service="trigger", healthy=True)
        await msg.respond(ReplyOk(result=status.model_dump()).model_dump_json().encode())

    await client.subscribe(subject, cb=health)
    print(f"fake backend answering {subject}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    record_env()
    asyncio.run(main())
