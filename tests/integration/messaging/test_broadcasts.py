"""Broadcast notices over a real NATS: every replica hears each one; a bad one is dropped."""

from __future__ import annotations

import asyncio
from typing import ClassVar, Literal

import nats
import pytest

from baton_contracts import Broadcast, Kind, Subject
from baton_messaging import MessagingSettings, broadcast, build_broker, listen, start_broker


class Poke(Broadcast):
    """A notice for the tests."""

    type: Literal["test.poke"] = "test.poke"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.CMD, name="test_poke")
    key: str
    user_id: str = "u"


class Heard:
    """The keys one replica heard, and an event set each time it hears one."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.changed = asyncio.Event()

    async def reach(self, count: int) -> None:
        async with asyncio.timeout(5.0):
            while len(self.keys) < count:
                self.changed.clear()
                await self.changed.wait()


async def test_every_replica_hears_each_notice_and_a_bad_one_is_dropped(nats_url: str) -> None:
    heard = {"a": Heard(), "b": Heard()}
    brokers = []
    for replica in heard:

        async def on_poke(notice: Poke, seen: Heard = heard[replica]) -> None:
            if notice.key == "boom":
                raise RuntimeError("a handler that fails is logged, the next notice still heard")
            seen.keys.append(notice.key)
            seen.changed.set()

        broker = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
        listen(broker, Poke, on_poke)
        await start_broker(broker)
        brokers.append(broker)
    sender = await nats.connect(nats_url)
    try:
        await broadcast(sender, Poke(key="boom"))
        await sender.publish(Poke.subject.pattern, b'{"type": "test.poke"}')  # no key
        await broadcast(sender, Poke(key="one"))
        await broadcast(brokers[0], Poke(key="two"))
        for seen in heard.values():
            await seen.reach(2)
        # Two senders on two connections: each replica hears both, in either order.
        assert {name: sorted(seen.keys) for name, seen in heard.items()} == {
            "a": ["one", "two"],
            "b": ["one", "two"],
        }

        await brokers[1].stop()  # a stopped replica hears nothing more; the others still do
        await broadcast(sender, Poke(key="three"))
        await heard["a"].reach(3)
        await asyncio.sleep(0.1)
        assert sorted(heard["b"].keys) == ["one", "two"]
    finally:
        await sender.close()
        for broker in brokers:
            await broker.stop()


async def test_nobody_listening_is_not_an_error(nats_url: str) -> None:
    sender = await nats.connect(nats_url)
    try:
        await broadcast(sender, Poke(key="lost"))
        await sender.flush()
    finally:
        await sender.close()


def test_a_broadcast_needs_its_fields() -> None:
    with pytest.raises(ValueError, match="key"):
        Poke()  # type: ignore[call-arg]
