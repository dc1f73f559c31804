"""W3C trace context crosses a request: the responder continues the requester's trace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar

import nats
import pytest
from nats.aio.client import Client
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from baton_contracts import Kind, Query, Subject
from baton_contracts.base import ReplyModel
from baton_messaging import MessagingSettings, build_broker, request, respond, start_broker


class TraceSeen(BaseModel):
    trace_id: int


class WhichTrace(Query):
    type: str = "test.which_trace"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.QUERY, name="test_trace")
    reply_model: ClassVar[ReplyModel] = TraceSeen


async def which_trace(query: WhichTrace) -> TraceSeen:
    return TraceSeen(trace_id=trace.get_current_span().get_span_context().trace_id)


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    """Spans of the global SDK provider, which is set once per process."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await nats.connect(nats_url)
    yield client
    await client.close()


async def test_responder_continues_the_requesters_trace(
    exporter: InMemorySpanExporter, nats_url: str, nc: Client
) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "tracer")
    respond(broker, WhichTrace, which_trace, queue="tracer")
    await start_broker(broker)
    tracer = trace.get_tracer("test")
    try:
        with tracer.start_as_current_span("gateway handles HTTP") as root:
            reply = await request(nc, WhichTrace(), timeout=2)
    finally:
        await broker.stop()
    trace_id = root.get_span_context().trace_id
    assert reply == TraceSeen(trace_id=trace_id)
    finished = {s.name: s for s in exporter.get_finished_spans()}
    assert finished["workflow.query.test_trace request"].context.trace_id == trace_id
    assert finished["workflow.query.test_trace process"].context.trace_id == trace_id
