"""Secrets must not reach exported spans: the SSE route takes `?token=<jwt>`."""

from __future__ import annotations

import httpx
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from baton_auth import mint_token
from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings
from baton_telemetry.setup import RedactSecrets

from .conftest import SECRET, FakeConnection, FakeRequester


async def test_a_query_token_is_not_recorded_in_spans() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(RedactSecrets())  # as setup_telemetry adds it
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    app = build(
        NotifierSettings(jwt_secret=SECRET),
        requester=FakeRequester(),
        connection=FakeConnection(),
        tracer_provider=provider,
    ).app
    token = mint_token(SECRET, "alice")
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        await http.get(f"/api/events?token={token}&last_seq=x")
    recorded = [dict(s.attributes or {}) for s in exporter.get_finished_spans()]
    provider.shutdown()
    queries = [attrs["url.query"] for attrs in recorded if "url.query" in attrs]
    assert queries == ["token=REDACTED&last_seq=x"]
    assert not any(token in str(v) for attrs in recorded for v in attrs.values())
