"""A stopping responder lets its requests finish for a grace period, then cancels the rest and
answers their callers `unavailable` at once, instead of leaving them to their own timeouts."""

from __future__ import annotations

import asyncio
import logging
import time

import nats
import pytest

from baton_contracts import HEALTH_QUERIES, ErrorCode, HealthStatus, Query, RemoteError
from baton_messaging import (
    MessagingSettings,
    build_broker,
    request,
    request_again_while_gone,
    respond,
    start_broker,
)

HEALTH = HEALTH_QUERIES["space"]


async def test_a_request_running_past_the_grace_is_cancelled_and_answered_unavailable(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow(_: Query) -> HealthStatus:
        started.set()
        try:
            await asyncio.sleep(60)  # a model that would take a minute
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH, slow, queue="space", stop_grace_seconds=0.2)
    await start_broker(broker)
    client = await nats.connect(nats_url)
    try:
        asked = asyncio.create_task(request(client, HEALTH(), timeout=30))
        await started.wait()
        began = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="baton_messaging.responder"):
            await broker.stop()
        with pytest.raises(RemoteError) as caught:
            await asyncio.wait_for(asked, 5)  # not the caller's 30 s
        assert time.monotonic() - began < 5
    finally:
        await client.close()
    assert cancelled.is_set()
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "stopped before answering" in caught.value.body.message
    assert "still running 0.2s after the stop began" in caplog.text


async def test_a_request_finishing_within_the_grace_is_answered(nats_url: str) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    started = asyncio.Event()

    async def brief(_: Query) -> HealthStatus:
        started.set()
        await asyncio.sleep(0.3)
        return HealthStatus(service="space", healthy=True)

    respond(broker, HEALTH, brief, queue="space", stop_grace_seconds=5)
    await start_broker(broker)
    client = await nats.connect(nats_url)
    try:
        asked = asyncio.create_task(request(client, HEALTH(), timeout=5))
        await started.wait()
        await broker.stop()
        reply = await asked
    finally:
        await client.close()
    assert isinstance(reply, HealthStatus) and reply.healthy


def test_the_grace_may_not_be_negative() -> None:
    broker = build_broker(MessagingSettings(), "space")

    async def handler(_: Query) -> HealthStatus:
        return HealthStatus(service="space", healthy=True)

    with pytest.raises(ValueError, match="stop_grace_seconds must be 0 or more, got -1"):
        respond(broker, HEALTH, handler, queue="space", stop_grace_seconds=-1)


async def test_a_request_nobody_takes_is_asked_again_for_retry_for_not_the_whole_timeout(
    nats_url: str,
) -> None:
    client = await nats.connect(nats_url)
    began = time.monotonic()
    try:
        with pytest.raises(RemoteError) as caught:
            await request_again_while_gone(client, HEALTH(), timeout=30, retry_for=0.8)
    finally:
        await client.close()
    assert "no responders" in caught.value.body.message
    assert 0.5 <= time.monotonic() - began < 5


@pytest.mark.parametrize("taken_for", [0.0, 1.2], ids=["at-once", "longer-than-retry-for"])
async def test_a_replica_that_stops_mid_request_leaves_it_to_the_next(
    nats_url: str, taken_for: float
) -> None:
    # retry_for (1 s) counts from the replica's going, not from the first send: a request
    # that ran a while before its replica was deployed is asked again all the same.
    first = build_broker(MessagingSettings(nats_url=nats_url), "space")
    started = asyncio.Event()

    async def stuck(_: Query) -> HealthStatus:
        started.set()
        await asyncio.sleep(60)
        return HealthStatus(service="space", healthy=False)

    async def quick(_: Query) -> HealthStatus:
        return HealthStatus(service="space", healthy=True)

    respond(first, HEALTH, stuck, queue="space", stop_grace_seconds=0.1)
    await start_broker(first)
    client = await nats.connect(nats_url)
    second = build_broker(MessagingSettings(nats_url=nats_url), "space")
    try:
        asked = asyncio.create_task(
            request_again_while_gone(client, HEALTH(), timeout=10, retry_for=1.0)
        )
        await started.wait()
        await asyncio.sleep(taken_for)
        await first.stop()  # a deploy: the next replica comes up a moment later
        respond(second, HEALTH, quick, queue="space")
        await start_broker(second)
        reply = await asyncio.wait_for(asked, 5)
    finally:
        await second.stop()
        await client.close()
    assert isinstance(reply, HealthStatus) and reply.healthy


async def test_requests_queued_behind_a_busy_responder_are_answered_too(nats_url: str) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "space")
    started = asyncio.Event()

    async def stuck(_: Query) -> HealthStatus:
        started.set()
        await asyncio.sleep(60)
        return HealthStatus(service="space", healthy=True)

    # One at a time: the second request waits in the responder's queue, never started.
    respond(broker, HEALTH, stuck, queue="space", concurrency=1, stop_grace_seconds=0.2)
    await start_broker(broker)
    client = await nats.connect(nats_url)
    try:
        running = asyncio.create_task(request(client, HEALTH(), timeout=30))
        await started.wait()
        queued = [asyncio.create_task(request(client, HEALTH(), timeout=30)) for _ in range(3)]
        await client.flush()
        await asyncio.sleep(0.1)  # they reached the responder's connection
        await broker.stop()
        outcomes = await asyncio.wait_for(
            asyncio.gather(running, *queued, return_exceptions=True), 5
        )
    finally:
        await client.close()
    assert all(isinstance(o, RemoteError) for o in outcomes), outcomes
    assert all("stopped before answering" in o.body.message for o in outcomes)  # type: ignore[union-attr]
