"""A stand-in for a NATS-only service: answers `trigger.query.health` on BATON_NATS_URL.

It writes the BATON_* variables it was started with to `$BATON_DATA_DIR/fake-backend-env.json`,
so a test can see exactly what `baton up` handed it. `fake_workflow` and `fake_agent` run the
same for another owner (`run(owner)`).

With FAKE_STOP_LOG set, SIGTERM appends `<owner> got SIGTERM` to that file, then, once it has
checked its NATS connection still works, `<owner> exits; NATS up` (or `down`), and exits.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import nats
from nats.aio.msg import Msg

from baton_contracts import HEALTH_QUERIES, HealthStatus, ReplyOk


def record_env() -> None:
    env = {key: value for key, value in os.environ.items() if key.startswith("BATON_")}
    Path(os.environ["BATON_DATA_DIR"], "fake-backend-env.json").write_text(json.dumps(env))


def stop_log(line: str) -> None:
    """Append `line` to FAKE_STOP_LOG (one write: lines of several processes never mix)."""
    with open(os.environ["FAKE_STOP_LOG"], "a") as out:
        out.write(f"{line}\n")


async def main(owner: str) -> None:
    client = await nats.connect(os.environ["BATON_NATS_URL"])
    subject = HEALTH_QUERIES[owner].subject.base

    async def health(msg: Msg) -> None:
        status = HealthStatus(service=owner, healthy=True)
        await msg.respond(ReplyOk(result=status.model_dump()).model_dump_json().encode())

    await client.subscribe(subject, cb=health)
    print(f"fake backend answering {subject}", flush=True)
    stopped = asyncio.Event()
    if "FAKE_STOP_LOG" in os.environ:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    await stopped.wait()
    stop_log(f"{owner} got SIGTERM")
    try:
        await client.flush(timeout=2)
        nats_state = "up"
    except Exception:
        nats_state = "down"
    stop_log(f"{owner} exits; NATS {nats_state}")


def run(owner: str) -> None:
    asyncio.run(main(owner))


if __name__ == "__main__":
    record_env()
    run("trigger")
