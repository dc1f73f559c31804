"""The outbox relay's DELETE of published rows cut at its commit (`CuttingProxy`), having
taken effect or not, with the server staying up or going away for a moment: the relay goes
on once it answers, and every event is on the stream once, in order, the outbox empty."""

from __future__ import annotations

import asyncio

import pytest
from nats.js import JetStreamContext

from baton_eventstore import OutboxRelay, SqlEventStore
from baton_messaging.publisher import JetStreamPublisher

from ...cutting_proxy import FATES, CuttingProxy
from .conftest import TestStream

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("going_down", [False, True], ids=["server-up", "server-gone"])
@pytest.mark.parametrize("delivered", FATES)
async def test_a_relay_cut_at_its_delete_publishes_each_event_once(
    postgres_url: str, stream: TestStream, js: JetStreamContext, delivered: bool, going_down: bool
) -> None:
    async with CuttingProxy(postgres_url).running() as proxy:
        store = await SqlEventStore.from_url(proxy.proxied_url)
        relay = OutboxRelay(
            store, JetStreamPublisher(js), poll_interval=0.05, delete_interval=0.05, max_backoff=0.2
        )
        try:
            first = [stream.event(n) for n in range(5)]
            await store.append("s", 0, first)
            proxy.cut_at_commit(
                "DELETE FROM outbox WHERE", delivered=delivered, going_down=going_down
            )
            relay.start()
            await asyncio.wait_for(proxy.cut_done.wait(), 10)
            if going_down:
                await asyncio.sleep(0.5)  # the relay meets the outage for a moment
                await proxy.come_back()
            then = [stream.event(n) for n in range(5, 8)]
            await store.append("s", 5, then)
            relay.kick()
            await relay.drain()
            await relay.stop()
            assert await stream.msg_ids() == [str(e.event_id) for e in [*first, *then]]
            assert await store.outbox.count() == 0
        finally:
            await proxy.come_back()
            await relay.stop()
            await store.close()
