"""A stream deleted and created again numbers its events from 1 again: a client resuming with
a seq of the old stream and its epoch is told to resync, never replayed the new one's events
past that number (the events before it would be missed without a word)."""

from __future__ import annotations

import asyncio

import nats
import pytest

from baton_messaging.broker import declare_streams
from baton_messaging.embedded import EmbeddedNatsServer
from baton_notifier.adapters.live_jetstream import EVENTS_STREAM

from .conftest import (
    WAIT,
    Gateway,
    GatewayFactory,
    bearer,
    new_user,
    publish,
    sse_client,
    step_changed,
    ws_client,
)


async def _publish(url: str, user: str, instance: str, count: int) -> list[int]:
    nc = await nats.connect(url)
    try:
        return [await publish(nc, step_changed(user, instance, n)) for n in range(count)]
    finally:
        await nc.close()


async def _on_the_new_stream(gateway: Gateway, old_epoch: str, seq: int) -> None:
    """Return once the gateway's live feed has seen the reset and handed on `seq`: a session
    opened earlier would be ended by it (1011), as every session is at a reset."""
    feed = gateway.notifier.live_feed
    assert feed is not None
    async with asyncio.timeout(WAIT):
        while feed.epoch() in (None, old_epoch):  # noqa: ASYNC110 (no event to wait on)
            await asyncio.sleep(0.01)
    await gateway.caught_up(seq)


async def _recreate_stream(url: str) -> None:
    """Delete the events stream and declare it again, as an operator's reset does."""
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        await js.delete_stream(EVENTS_STREAM.name)
        await declare_streams(js, [EVENTS_STREAM])
    finally:
        await nc.close()


@pytest.mark.parametrize("more", [0, 3], ids=["at-its-seq", "past-its-seq"])
async def test_a_websocket_resuming_into_a_recreated_stream_gets_resync(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory, more: int
) -> None:
    gateway = await gateways(own_nats.url)
    ada = new_user("ada")
    async with ws_client(gateway, ada) as client:
        ready = await client.ready_frame()
        await _publish(own_nats.url, ada, "old", 2)
        seen = await client.events(2)
    old_epoch, last_seq = seen[-1]["epoch"], seen[-1]["seq"]
    assert ready["epoch"] == old_epoch  # `ready` says which stream its last_seq counts in
    await _recreate_stream(own_nats.url)
    seqs = await _publish(own_nats.url, ada, "new", last_seq + more)
    assert seqs[0] == 1 and seqs[-1] >= last_seq
    await _on_the_new_stream(gateway, old_epoch, seqs[-1])
    async with ws_client(gateway, ada, last_seq=last_seq, epoch=old_epoch) as client:
        (resync,) = await client.ready()
        assert resync["type"] == "resync" and "stream was reset" in resync["reason"]
        (live,) = await _publish(own_nats.url, ada, "new", 1)
        (event,) = await client.events(1)
    assert event["seq"] == live and event["epoch"] not in (None, old_epoch)


async def test_an_sse_client_resuming_into_a_recreated_stream_gets_resync(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory
) -> None:
    gateway = await gateways(own_nats.url)
    bea = new_user("bea")
    async with sse_client(gateway, bearer(bea)) as client:
        await client.ready()
        await _publish(own_nats.url, bea, "old", 2)
        seen = [await client.next() for _ in range(2)]
    last = seen[-1]
    assert last.id == f"{last.data['epoch']}-{last.data['seq']}"  # what EventSource sends back
    await _recreate_stream(own_nats.url)
    seqs = await _publish(own_nats.url, bea, "new", last.data["seq"] + 3)
    await _on_the_new_stream(gateway, last.data["epoch"], seqs[-1])
    async with sse_client(gateway, {**bearer(bea), "Last-Event-ID": last.id or ""}) as client:
        resync, ready = await client.next(), await client.next()
    assert resync.event == "resync" and "stream was reset" in resync.data["reason"]
    assert ready.event == "ready" and ready.id == f"{ready.data['epoch']}-{seqs[-1]}"
    assert ready.data["epoch"] != last.data["epoch"]


async def test_a_resume_in_the_same_stream_with_its_epoch_replays(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory
) -> None:
    gateway = await gateways(own_nats.url)
    cy = new_user("cy")
    async with ws_client(gateway, cy) as client:
        ready = await client.ready_frame()
    seqs = await _publish(own_nats.url, cy, "i1", 3)
    await gateway.caught_up(seqs[-1])
    # The epoch as a parameter, and inside the position as an SSE id writes it.
    for params in (
        {"last_seq": ready["last_seq"], "epoch": ready["epoch"]},
        {"last_seq": f"{ready['epoch']}-{ready['last_seq']}"},
    ):
        async with ws_client(gateway, cy, **params) as client:
            missed = await client.ready()
        assert [f["seq"] for f in missed] == seqs
        assert {f["epoch"] for f in missed} == {ready["epoch"]}
