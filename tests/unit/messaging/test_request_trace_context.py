"""A request made where no tracer provider is set passes on the trace context it runs in, as
the no-op span it used to make did, and carries no headers when there is none."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from baton_contracts import HEALTH_QUERIES, HealthStatus
from baton_messaging import request
from baton_messaging import requests as requests_module
from baton_messaging.handling import reply_json

QUERY = HEALTH_QUERIES["workflow"]
TRACE_ID, SPAN_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736, 0x00F067AA0BA902B7


@pytest.fixture(autouse=True)
def no_tracer_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path taken while no tracer provider is set. OpenTelemetry's provider is global and
    set once per process: another test of the run may have set it, so it is not left to
    chance (a skip decided at collection ran these tests after one had)."""
    monkeypatch.setattr(requests_module, "tracing_on", lambda: False)


class Reply:
    def __init__(self, data: bytes) -> None:
        self.data = data


class FakeClient:
    """Answers every request healthy; keeps the headers each was sent with."""

    max_payload = 1024 * 1024
    is_closed = is_draining_pubs = False
    is_connected = True

    def __init__(self) -> None:
        self.headers: list[dict[str, str] | None] = []

    async def request(
        self, subject: str, payload: bytes, timeout: float, headers: dict[str, str] | None
    ) -> Reply:
        self.headers.append(headers)
        status = HealthStatus(service="workflow", healthy=True, checks={})
        return Reply(reply_json(QUERY, status))


async def test_without_a_trace_no_headers_are_sent() -> None:
    client = FakeClient()
    await request(client, QUERY(), timeout=1)  # type: ignore[arg-type]
    assert client.headers == [None]


async def test_the_trace_the_request_runs_in_is_passed_on() -> None:
    client = FakeClient()
    upstream = SpanContext(TRACE_ID, SPAN_ID, is_remote=True, trace_flags=TraceFlags(1))
    token = otel_context.attach(trace.set_span_in_context(NonRecordingSpan(upstream)))
    try:
        reply: Any = await request(client, QUERY(), timeout=1)  # type: ignore[arg-type]
    finally:
        otel_context.detach(token)
    assert reply.healthy
    assert client.headers == [{"traceparent": f"00-{TRACE_ID:032x}-{SPAN_ID:016x}-01"}]
