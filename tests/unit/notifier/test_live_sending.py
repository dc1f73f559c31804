"""How frames leave a session (`pump`) and how deliveries leave nats-py's parser (`DeliveryTap`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest
from nats.aio.client import Client
from nats.aio.subscription import Subscription

from baton_notifier.adapters.delivery_tap import DeliveryTap
from baton_notifier.domain.live import Filter, Frame, LiveEvent, parse_event
from baton_notifier.service.live import LiveHub, LiveSession


def event(seq: int) -> LiveEvent:
    body = {"type": "workflow.step_changed", "user_id": "ann", "instance_id": "i1",
            "occurred_at": "2026-01-10T00:00:00Z"}  # fmt: skip
    return parse_event(seq, json.dumps(body).encode())


class Socket:
    """A client socket's ASGI `send`: it waits while `open` is clear (a backed-up socket)."""

    def __init__(self) -> None:
        self.sent: list[int] = []
        self.open = asyncio.Event()
        self.open.set()
        self.fail: Exception | None = None

    async def send(self, frame: Frame) -> None:
        await self.open.wait()
        if self.fail is not None:
            raise self.fail
        assert isinstance(frame, LiveEvent)
        self.sent.append(frame.seq)


async def pumping(socket: Socket) -> tuple[LiveHub, LiveSession, asyncio.Task[None]]:
    hub = LiveHub()
    session = LiveSession(Filter("ann"), queue_size=3, after_seq=None)
    hub.add(session)
    await session.go_live()
    pump = asyncio.create_task(session.pump(socket.send))
    await asyncio.sleep(0)  # the pump is waiting for frames
    return hub, session, pump


async def test_an_idle_pump_sends_a_frame_while_it_is_offered() -> None:
    socket = Socket()
    hub, _, pump = await pumping(socket)
    hub.deliver(event(1))
    assert socket.sent == [1]  # no task switch in between
    hub.deliver(event(2))
    assert socket.sent == [1, 2]
    pump.cancel()


async def test_frames_behind_a_backed_up_socket_go_out_in_order_once_it_drains() -> None:
    socket = Socket()
    socket.open.clear()
    hub, session, pump = await pumping(socket)
    for seq in (1, 2, 3):
        hub.deliver(event(seq))
    assert socket.sent == [] and session.ended is None
    socket.open.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert socket.sent == [1, 2, 3]
    hub.deliver(event(4))
    assert socket.sent == [1, 2, 3, 4]
    pump.cancel()


async def test_a_socket_that_stays_backed_up_ends_the_session_as_too_slow() -> None:
    socket = Socket()
    socket.open.clear()
    hub, session, pump = await pumping(socket)
    for seq in range(1, 6):  # one in flight, three queued, the fifth overflows
        hub.deliver(event(seq))
    assert session.ended is not None and session.ended.code == 4408
    pump.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pump


async def test_a_send_that_fails_ends_the_pump_with_its_error() -> None:
    socket = Socket()
    socket.fail = OSError("connection reset")
    hub, _, pump = await pumping(socket)
    hub.deliver(event(1))  # the live feed is not the one that sees the error
    with pytest.raises(OSError, match="connection reset"):
        await pump


async def test_cancelling_the_pump_abandons_a_send_that_waits() -> None:
    socket = Socket()
    socket.open.clear()
    hub, _, pump = await pumping(socket)
    hub.deliver(event(1))
    await asyncio.sleep(0)
    pump.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pump
    socket.open.set()
    await asyncio.sleep(0)
    assert socket.sent == []


# --- the tap ---------------------------------------------------------------------------------


class FakeClient:
    """The part of nats-py's `Client` the tap touches."""

    def __init__(self) -> None:
        self.stats = {"in_msgs": 0, "in_bytes": 0}
        self.passed_on: list[bytes] = []

    async def _process_msg(
        self, sid: int, subject: bytes, reply: bytes, data: bytes, headers: bytes | None
    ) -> None:
        self.passed_on.append(data)


def subscription(sid: int) -> Subscription:
    return cast(Subscription, type("Sub", (), {"_id": sid})())


async def test_the_tap_takes_one_subscriptions_deliveries_and_passes_the_rest_on() -> None:
    nc = FakeClient()
    tap = DeliveryTap.of(cast(Client, nc))
    assert DeliveryTap.of(cast(Client, nc)) is tap
    taken: list[tuple[str, bytes]] = []
    tap.route(subscription(7), lambda reply, data: taken.append((reply, data)))
    process: Any = nc._process_msg
    headers = b"NATS/1.0\r\nNats-Msg-Id: e1\r\n\r\n"
    await process(7, b"workflow.evt.x.ann.i1", b"$JS.ACK.S.c.1.5.5.0.0", b"{}", headers)
    await process(7, b"_INBOX.x", b"", b"", b"NATS/1.0 100 Idle Heartbeat\r\n\r\n")
    await process(8, b"other", b"", b"other", None)
    assert taken == [("$JS.ACK.S.c.1.5.5.0.0", b"{}")]
    assert nc.passed_on == [b"", b"other"]  # the heartbeat and the other subscription
    tap.unroute(subscription(7))
    await process(7, b"workflow.evt.x.ann.i1", b"$JS.ACK.S.c.1.6.6.0.0", b"{}", headers)
    assert nc.passed_on == [b"", b"other", b"{}"]
