"""Reconnecting with the last seq replays exactly what was missed, then goes on live."""

from __future__ import annotations

import asyncio

import nats
import pytest
from nats.aio.client import Client

from baton_messaging import JetStreamPublisher
from baton_messaging.embedded import EmbeddedNatsServer
from baton_notifier.service.live_events import REPLAY_WINDOW

from .conftest import (
    Driver,
    Gateway,
    GatewayFactory,
    bearer,
    msg_id_for,
    new_user,
    publish,
    sse_client,
    step_blocked,
    step_changed,
    ws_client,
)


async def test_websocket_replays_the_three_missed_transitions(
    gateway: Gateway, driver: Driver
) -> None:
    eve = new_user("eve")
    instance = await driver.start(eve)
    async with ws_client(gateway, eve, instance_id=instance) as client:
        await client.ready()
        await driver.advance(eve, instance)
        last_seq = (await client.events(1))[0]["seq"]
    for _ in range(3):
        await driver.advance(eve, instance)
    async with ws_client(gateway, eve, last_seq=last_seq) as client:
        missed = await client.ready()
        assert [f["payload"]["current_step"] for f in missed] == ["s2", "s3", "s4"]
        seqs = [f["seq"] for f in missed]
        assert seqs == sorted(seqs) and seqs[0] > last_seq
        await driver.advance(eve, instance)
        live = (await client.events(1))[0]
        assert live["payload"]["current_step"] == "s5" and live["seq"] > seqs[-1]
        await client.silent()


@pytest.mark.parametrize("form", ["epoch-seq", "seq"])
async def test_sse_replays_after_last_event_id(gateway: Gateway, driver: Driver, form: str) -> None:
    # "seq": what a client kept from a gateway before ids had an epoch, still resumed from.
    fay = new_user("fay")
    instance = await driver.start(fay)
    async with sse_client(gateway, bearer(fay)) as client:
        await client.ready()
        await driver.advance(fay, instance)
        last = await client.next()
    for _ in range(3):
        await driver.advance(fay, instance)
    last_id = str(last.id) if form == "epoch-seq" else str(last.data["seq"])
    headers = {**bearer(fay), "Last-Event-ID": last_id}
    async with sse_client(gateway, headers) as client:
        missed = await client.ready()
    assert [e.data["payload"]["current_step"] for e in missed] == ["s2", "s3", "s4"]
    assert [e.id for e in missed] == [f"{e.data['epoch']}-{e.data['seq']}" for e in missed]


async def test_an_empty_last_event_id_leaves_last_seq_in_charge(
    gateway: Gateway, driver: Driver
) -> None:
    # A proxy (or a client library) that sends the header empty must not turn a resume into
    # a live-only stream: the missed events would be skipped without a word.
    hal = new_user("hal")
    instance = await driver.start(hal)
    async with sse_client(gateway, bearer(hal)) as client:
        await client.ready()
        await driver.advance(hal, instance)
        last_id = (await client.next()).id
    await driver.advance(hal, instance)
    headers = {**bearer(hal), "Last-Event-ID": ""}
    async with sse_client(gateway, headers, last_seq=last_id) as client:
        missed = await client.ready()
    assert [e.data["payload"]["current_step"] for e in missed] == ["s2"]


async def test_live_events_during_replay_are_neither_lost_nor_repeated(
    gateway: Gateway, nc: Client
) -> None:
    gus = new_user("gus")
    first = await publish(nc, step_changed(gus, "i1", 0))
    for n in range(1, 200):
        await publish(nc, step_changed(gus, "i1", n))

    async def keep_publishing() -> None:
        for n in range(200, 300):
            await publish(nc, step_changed(gus, "i1", n))
            await asyncio.sleep(0)

    async with ws_client(gateway, gus, last_seq=first - 1) as client:
        publisher = asyncio.create_task(keep_publishing())
        frames = await client.ready()
        await publisher
        frames += await client.events(300 - len(frames))
        await client.silent()
    steps = [int(f["payload"]["previous_step"][1:]) for f in frames]
    assert steps == list(range(300))
    seqs = [f["seq"] for f in frames]
    assert seqs == sorted(set(seqs))


async def test_a_gap_older_than_the_stream_keeps_gets_a_resync_frame(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory
) -> None:
    gateway = await gateways(own_nats.url)
    hal = new_user("hal")
    nc = await nats.connect(own_nats.url)
    try:
        seqs = [await publish(nc, step_changed(hal, "i1", n)) for n in range(3)]
        await nc.jetstream().purge_stream("WORKFLOW_EVT", seq=seqs[2])  # keeps only the third
    finally:
        await nc.close()
    async with ws_client(gateway, hal, last_seq=seqs[0]) as client:
        (resync,) = await client.ready()
        assert resync["type"] == "resync" and resync["first_seq"] == seqs[2]
    async with ws_client(gateway, hal, last_seq=seqs[1]) as client:
        (replayed,) = await client.ready()
        assert replayed["seq"] == seqs[2]


async def test_a_replay_narrowed_to_one_instance_takes_every_subject_layout(
    gateway: Gateway, nc: Client
) -> None:
    """Step starts end with their agent; other events end with the instance; an older
    publisher's step starts too. A replay for one instance takes all three, and nothing else."""
    ivy = new_user("ivy")
    first = await publish(nc, step_changed(ivy, "i1", 0))  # ...step_changed.ivy.i1.-
    await publish(nc, step_blocked(ivy, "i1", "criteria"))  # ...step_blocked.ivy.i1
    legacy = step_changed(ivy, "i1", 1)
    await JetStreamPublisher(nc.jetstream()).publish(
        f"workflow.evt.step_changed.{ivy}.i1", legacy.to_bytes(), msg_id_for(legacy.event_id)
    )
    await publish(nc, step_changed(ivy, "i2", 7))  # another instance of the same user
    async with ws_client(gateway, ivy, instance_id="i1", last_seq=first - 1) as client:
        missed = await client.ready()
        await client.silent()
    assert [f["type"] for f in missed] == [
        "workflow.step_changed",
        "workflow.step_blocked",
        "workflow.step_changed",
    ]
    assert {f["payload"]["instance_id"] for f in missed} == {"i1"}


async def test_an_sse_client_that_drops_before_its_first_event_resumes_from_its_ready(
    gateway: Gateway, driver: Driver
) -> None:
    # `ready` had no `id:`, so a browser whose stream dropped before any event of its own (a
    # gateway restart, a proxy's idle timeout) reconnected without Last-Event-ID and never
    # got the events of the gap (found by a review of the gateway).
    ivy = new_user("ivy")
    instance = await driver.start(ivy)
    async with sse_client(gateway, bearer(ivy)) as client:
        ready = await client.next()
        assert ready.event == "ready" and ready.id is not None
    await driver.advance(ivy, instance)  # while it is away
    headers = {**bearer(ivy), "Last-Event-ID": ready.id}
    async with sse_client(gateway, headers) as client:
        missed = await client.ready()
    assert [e.data["payload"]["current_step"] for e in missed] == ["s1"]
    assert missed[0].data["seq"] > ready.data["last_seq"]


async def test_a_replay_to_a_client_that_reads_nothing_queues_a_few_frames_at_a_time(
    gateway: Gateway, nc: Client
) -> None:
    # Every replay holds its own copy of the events it reads: queued up to the whole queue
    # (1,000 frames), 32 resuming clients that read nothing took the gateway past 1.4 GB.
    ivy = new_user("ivy")
    first = await publish(nc, step_changed(ivy, "i1", 0))
    for n in range(1, 300):
        await publish(nc, step_changed(ivy, "i1", n))
    async with gateway.notifier.live.subscribe(ivy, after_seq=first - 1) as session:
        queued = -1
        while queued != session.replayed:  # until the replay waits for the client
            queued = session.replayed
            await asyncio.sleep(0.2)
        assert 0 < queued <= REPLAY_WINDOW
        frames = [await session.next() for _ in range(301)]
    assert [f.type for f in frames] == ["workflow.step_changed"] * 300 + ["ready"]
    assert [f.seq for f in frames[:300]] == list(range(first, first + 300))
