"""Per-message log lines stay out of INFO logs: two per request is noise at production rates."""

from __future__ import annotations

import logging

import pytest

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
from baton_messaging import MessagingSettings, build_broker, request, respond, start_broker


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
