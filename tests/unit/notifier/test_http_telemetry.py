"""The gateway's HTTP spans: on Baton's tracer provider when tracing is on; when it is off,
FastAPI does not look for a provider on every request."""

from __future__ import annotations

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings

from .conftest import SECRET, FakeConnection, FakeRequester


async def _get(app: object, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        return await http.get(path)


def _gateway(provider: TracerProvider | None) -> object:
    settings = NotifierSettings(jwt_secret=SECRET)
    built = build(
        settings, requester=FakeRequester(), connection=FakeConnection(), tracer_provider=provider
    )
    return built.app


async def test_with_tracing_on_each_request_is_a_span_on_batons_provider() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    assert (await _get(_gateway(provider), "/health")).status_code == 200
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans if s.kind is trace.SpanKind.SERVER] == ["GET /health"]
    provider.shutdown()


async def test_with_tracing_off_no_request_asks_for_a_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = _gateway(None)
    asked: list[str] = []
    real = trace.get_tracer_provider

    def counted() -> trace.TracerProvider:
        asked.append("tracer")
        return real()

    monkeypatch.setattr(trace, "get_tracer_provider", counted)
    for _ in range(3):
        assert (await _get(app, "/health")).status_code == 200
    assert asked == []
