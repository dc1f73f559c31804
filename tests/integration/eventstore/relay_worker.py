"""A relay in its own process, for the SIGKILL test: `python relay_worker.py DB_URL NATS_URL`."""

from __future__ import annotations

import asyncio
import sys

import nats

from baton_eventstore import OutboxRelay, SqlEventStore
from baton_messaging.publisher import JetStreamPublisher


async def main(db_url: str, nats_url: str) -> None:
    store = await SqlEventStore.from_url(db_url)
    nc = await nats.connect(nats_url)
    relay = OutboxRelay(store, JetStreamPublisher(nc.jetstream()), batch_size=20, lease_ttl=1.0)
    print("ready", flush=True)
    await relay.drain(timeout=600)
    print("drained", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
