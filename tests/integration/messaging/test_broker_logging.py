"""Per-message log lines stay out of INFO logs: two per request is noise at production rates."""

from __future__ import annotations

import logging
import uuid

import nats
import pytest

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
from baton_contracts.streams import StreamSpec
from baton_messaging import (
    MessagingSettings,
    build_broker,
    durable_subscriber,
    request,
    respond,
    start_broker,
)


async def test_a_served_request_writes_no_info_lines(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "trigger")

    async def healthy(_: Query) -> HealthStatus:
        return HealthStatus(service="trigger", healthy=True)

    respond(broker, HEALTH_QUERIES["trigger"], healthy, queue="trigger")
    await start_broker(broker)
    try:
        with caplog.at_level(logging.INFO, logger="baton.trigger.messaging"):
            await request(broker, HEALTH_QUERIES["trigger"].model_validate({}), timeout=2)
        lines = [r.getMessage() for r in caplog.records if r.name == "baton.trigger.messaging"]
        assert not [line for line in lines if line in {"Received", "Processed"}], lines
    finally:
        await broker.stop()


async def test_a_stop_writes_no_line_per_subscriber_task(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # FastStream said `callback for Task-12 is being executed...` at INFO for each task of a
    # durable's fetch loop as the broker stopped: noise in every service's log at every stop.
    token = uuid.uuid4().hex[:8]
    spec = StreamSpec(name=f"QUIET_{token.upper()}", subjects=(f"test.quiet.{token}.*",))
    broker = build_broker(MessagingSettings(nats_url=nats_url), "trigger")

    async def heard(_: str) -> None:
        pass

    durable_subscriber(broker, spec.subjects[0], consumer="quiet", stream=spec)(heard)
    await start_broker(broker, [spec])
    with caplog.at_level(logging.INFO, logger="baton.trigger.messaging"):
        await broker.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "baton.trigger.messaging"]
    assert not [line for line in lines if "is being executed" in line], lines
    nc = await nats.connect(nats_url)
    try:
        await nc.jetstream().delete_stream(spec.name)
    finally:
        await nc.close()
