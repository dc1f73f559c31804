"""A client sees every event of its own user, over WebSocket and SSE, and nobody else's."""

from __future__ import annotations

import pytest
from nats.aio.client import Client

from .conftest import (
    CHAIN,
    Driver,
    Gateway,
    bearer,
    new_user,
    publish,
    sse_client,
    step_changed,
    token,
    ws_client,
)


async def test_websocket_gets_own_events_only(gateway: Gateway, driver: Driver, nc: Client) -> None:
    ann, bob = new_user("ann"), new_user("bob")
    async with ws_client(gateway, ann) as everything:
        assert await everything.ready() == []
        ann_instance = await driver.start(ann)
        started = (await everything.events(1))[0]
        assert started["type"] == "workflow.started"
        assert started["payload"]["instance_id"] == ann_instance
        assert started["payload"]["workflow_id"] == CHAIN
        assert started["occurred_at"] == started["payload"]["occurred_at"]
        bob_instance = await driver.start(bob)

        async with (
            ws_client(gateway, ann, via="subprotocol", instance_id=ann_instance) as narrowed,
            ws_client(gateway, ann, instance_id=bob_instance) as snooping,
        ):
            await narrowed.ready()
            await snooping.ready()
            for _ in range(2):
                await driver.advance(bob, bob_instance)
                await driver.advance(ann, ann_instance)
            mine = await everything.events(2)
            assert [f["type"] for f in mine] == ["workflow.step_changed"] * 2
            assert {f["payload"]["user_id"] for f in mine} == {ann}
            assert [f["payload"]["current_step"] for f in mine] == ["s1", "s2"]
            assert mine[0]["seq"] < mine[1]["seq"]
            assert await narrowed.events(2) == mine
            other = await publish(nc, step_changed(ann, "ann-other-instance", 0))
            assert (await everything.events(1))[0]["seq"] == other
            await narrowed.silent()
            await everything.silent()
            await snooping.silent()


async def test_sse_gets_own_events_with_id_and_event_lines(
    gateway: Gateway, driver: Driver
) -> None:
    cat, dan = new_user("cat"), new_user("dan")
    cat_instance = await driver.start(cat)
    dan_instance = await driver.start(dan)
    async with (
        sse_client(gateway, bearer(cat)) as everything,
        sse_client(gateway, token=token(cat), instance_id=dan_instance) as snooping,
    ):
        assert await everything.ready() == []
        await snooping.ready()
        await driver.advance(dan, dan_instance)
        await driver.advance(cat, cat_instance)
        event = await everything.next()
        assert event.event == "workflow.step_changed"
        assert event.data["type"] == "workflow.step_changed"
        assert event.id == f"{event.data['epoch']}-{event.data['seq']}"
        assert event.data["payload"]["user_id"] == cat
        assert event.data["payload"]["instance_id"] == cat_instance
        with pytest.raises(TimeoutError):
            await snooping.next(0.3)
