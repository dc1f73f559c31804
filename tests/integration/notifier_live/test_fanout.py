"""Fan-out: replicas side by side deliver once each, and a slow client is cut off alone."""

from __future__ import annotations

import asyncio

from nats.aio.client import Client

from .conftest import (
    WAIT,
    GatewayFactory,
    StalledClient,
    new_user,
    publish,
    step_blocked,
    step_changed,
    token,
    ws_client,
)


async def test_two_replicas_each_deliver_every_event_once_to_their_own_clients(
    gateways: GatewayFactory, nc: Client
) -> None:
    left, right = await gateways(), await gateways()
    ivy, jon, kim = new_user("ivy"), new_user("jon"), new_user("kim")
    async with (
        ws_client(left, ivy) as ivy_left,
        ws_client(right, jon) as jon_right,
        ws_client(left, kim) as kim_left,
        ws_client(right, kim) as kim_right,
    ):
        clients = [ivy_left, jon_right, kim_left, kim_right]
        for client in clients:
            await client.ready()
        sent: dict[str, list[int]] = {ivy: [], jon: [], kim: []}
        for n in range(20):
            for user in sent:
                sent[user].append(await publish(nc, step_changed(user, f"{user}-i", n)))
        for client, user in zip(clients, [ivy, jon, kim, kim], strict=True):
            frames = await client.events(20)
            assert [f["seq"] for f in frames] == sent[user]
            assert {f["payload"]["user_id"] for f in frames} == {user}
        for client in clients:
            await client.silent()


async def test_a_slow_client_is_closed_with_4408_and_others_keep_getting_events(
    gateways: GatewayFactory, nc: Client
) -> None:
    gateway = await gateways(live_queue_size=8)
    slow, quick = new_user("slow"), new_user("quick")
    stalled = StalledClient(gateway.ws_url(token=token(slow)))
    await stalled.connect()
    assert gateway.notifier.live is not None
    (session,) = [s for s in gateway.notifier.live.hub.sessions() if s.filter.user_id == slow]
    async with ws_client(gateway, quick) as healthy:
        await healthy.ready()
        big = "x" * 64_000
        sent = []
        for n in range(150):  # ~10 MB: more than every socket buffer between us and the gateway
            sent.append(await publish(nc, step_blocked(slow, "slow-i", f"{n} {big}")))
            if n % 10 == 0:
                await publish(nc, step_changed(quick, "quick-i", n))
        assert len(await healthy.events(15)) == 15  # never held up by the stalled client
        await asyncio.wait_for(session.ended_event.wait(), WAIT)
        assert session not in gateway.notifier.live.hub.sessions()
    code, reason = await stalled.read_to_close()
    assert (code, reason.split(":")[0]) == (4408, "resync")
    received = [f["seq"] for f in stalled.frames if f["type"] == "workflow.step_blocked"]
    assert received == sent[: len(received)] and len(received) < len(sent)

    async with ws_client(gateway, slow, last_seq=received[-1]) as again:
        rest = await again.ready()
    assert [f["seq"] for f in rest] == sent[len(received) :]
