"""A responder handles requests concurrently: a slow request does not hold the others back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from faststream import BaseMiddleware, StreamMessage

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
from baton_messaging import MessagingSettings, build_broker, request, respond, start_broker


async def test_a_request_waiting_on_a_later_one_is_not_deadlocked(nats_url: str) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    arrived: list[asyncio.Event] = [asyncio.Event(), asyncio.Event()]
    calls = 0

    async def handler(_: Query) -> HealthStatus:
        nonlocal calls
        mine, calls = calls, calls + 1
        arrived[mine].set()
        # Each call finishes only once both are in flight: one-at-a-time handling deadlocks.
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in arrived)), 5)
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH_QUERIES["space"], handler, queue="space")
    await start_broker(broker)
    try:
        nc = broker.connection
        replies = await asyncio.gather(
            *(request(nc, HEALTH_QUERIES["space"](), timeout=3) for _ in range(2))
        )
        assert [r.healthy for r in replies] == [True, True]  # type: ignore[attr-defined]
    finally:
        await broker.stop()


async def test_by_default_a_responder_has_hundreds_of_requests_in_flight(nats_url: str) -> None:
    """Handlers mostly wait on other services and models: a replica must not stop taking
    requests at a few dozen waiting ones (the default was 32)."""
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    wanted = 200
    in_flight = 0
    everyone = asyncio.Event()

    async def handler(_: Query) -> HealthStatus:
        nonlocal in_flight
        in_flight += 1
        if in_flight == wanted:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), 5)  # each answers once all are in flight
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH_QUERIES["space"], handler, queue="space")
    await start_broker(broker)
    try:
        replies = await asyncio.gather(
            *(request(broker, HEALTH_QUERIES["space"](), timeout=8) for _ in range(wanted))
        )
        assert len(replies) == wanted and in_flight == wanted
    finally:
        await broker.stop()


def test_concurrency_must_be_positive() -> None:
    broker = build_broker(MessagingSettings(), "space")

    async def handler(_: Query) -> HealthStatus:
        return HealthStatus(service="space", healthy=True)

    with pytest.raises(ValueError, match="concurrency"):
        respond(broker, HEALTH_QUERIES["space"], handler, queue="space", concurrency=0)


async def test_no_more_than_concurrency_requests_run_at_once(nats_url: str) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    running = peak = 0

    async def handler(_: Query) -> HealthStatus:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH_QUERIES["space"], handler, queue="space", concurrency=2)
    await start_broker(broker)
    try:
        replies = await asyncio.gather(
            *(request(broker, HEALTH_QUERIES["space"](), timeout=3) for _ in range(6))
        )
        assert len(replies) == 6
        assert peak == 2
    finally:
        await broker.stop()


async def test_stopping_lets_a_request_in_flight_answer(nats_url: str) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    started, release = asyncio.Event(), asyncio.Event()

    async def handler(_: Query) -> HealthStatus:
        started.set()
        await release.wait()
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH_QUERIES["space"], handler, queue="space")
    await start_broker(broker)
    caller = build_broker(MessagingSettings(nats_url=nats_url), "caller")
    await caller.connect()
    try:
        pending = asyncio.create_task(request(caller, HEALTH_QUERIES["space"](), timeout=3))
        await asyncio.wait_for(started.wait(), 3)
        stopping = asyncio.create_task(broker.stop())
        await asyncio.sleep(0.05)
        assert not stopping.done()  # waits for the handler
        release.set()
        reply = await pending
        await stopping
        assert reply.healthy  # type: ignore[attr-defined]
    finally:
        await caller.stop()


async def test_requests_bypass_faststreams_per_message_pipeline(nats_url: str) -> None:
    """`respond()` swaps its subscriber's start and stop for `_Serving`; a FastStream release
    that starts subscribers some other way would put its pipeline back on every request (about
    200 us of CPU each). A broker middleware sees a plain subscriber's messages, none of ours."""
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    seen: list[str] = []

    class Recording(BaseMiddleware):
        async def consume_scope(self, call_next: Any, msg: StreamMessage[Any]) -> Any:
            seen.append(msg.raw_message.subject)
            return await call_next(msg)

    broker.add_middleware(Recording)
    plain = asyncio.Event()

    @broker.subscriber("test.plain")
    async def on_plain(_: str) -> None:
        plain.set()

    async def handler(_: Query) -> HealthStatus:
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH_QUERIES["space"], handler, queue="space")
    await start_broker(broker)
    try:
        for _ in range(3):
            reply = await request(broker, HEALTH_QUERIES["space"](), timeout=3)
            assert reply.healthy  # type: ignore[attr-defined]
        await broker.publish("x", "test.plain")
        await asyncio.wait_for(plain.wait(), 3)
        assert seen == ["test.plain"]
    finally:
        await broker.stop()
