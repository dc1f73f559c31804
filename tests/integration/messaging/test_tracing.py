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
from opentelemetry.trace import StatusCode
from pydantic import BaseModel

from baton_contracts import ErrorCode, Kind, Query, RemoteError, Subject
from baton_contracts.base import ReplyModel
from baton_messaging import MessagingSettings, build_broker, request, respond, start_broker
from baton_messaging.requests import trace_headers


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


class Refuse(Query):
    type: str = "test.refuse"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.QUERY, name="test_refuse")
    reply_model: ClassVar[ReplyModel] = TraceSeen
    code: ErrorCode


async def refuse(query: Refuse) -> TraceSeen:
    raise RemoteError.of(query.code, f"refused: {query.code.value}")


@pytest.mark.parametrize(
    ("code", "status"),
    [(ErrorCode.UNAVAILABLE, StatusCode.ERROR), (ErrorCode.INVALID, StatusCode.UNSET)],
)
async def test_an_error_reply_is_recorded_on_both_spans(
    exporter: InMemorySpanExporter, nats_url: str, nc: Client, code: ErrorCode, status: StatusCode
) -> None:
    # Every failure became a reply inside the span, so both ended clean: a trace of a 503
    # showed no error where the turn failed. The caller's own mistakes stay unset.
    exporter.clear()
    broker = build_broker(MessagingSettings(nats_url=nats_url), "refuser")
    respond(broker, Refuse, refuse, queue="refuser")
    await start_broker(broker)
    try:
        with pytest.raises(RemoteError):
            await request(nc, Refuse(code=code), timeout=2)
    finally:
        await broker.stop()
    for kind in ("request", "process"):
        [span] = [s for s in exporter.get_finished_spans() if s.name.endswith(kind)]
        assert span.attributes is not None and span.attributes["error.type"] == code.value
        assert span.status.status_code == status


def test_an_event_recorded_in_a_trace_carries_it_to_its_consumers(
    exporter: InMemorySpanExporter,
) -> None:
    with trace.get_tracer("test").start_as_current_span("a turn") as turn:
        headers = trace_headers()
    trace_id = f"{turn.get_span_context().trace_id:032x}"
    assert headers["traceparent"].split("-")[1] == trace_id
