"""Every service exports its spans, so one trace spans the caller and the service it asked.

Each service runs as its own process with tracing on, pointed at a collector that records what
it is sent over OTLP/HTTP. A request carrying a W3C trace context must come back as a span of
that service (by `service.name`) in the caller's trace, under the caller's span.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nats
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from baton_contracts import HEALTH_QUERIES

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN_ID = "00f067aa0ba902b7"


class Collector:
    """An OTLP/HTTP traces endpoint keeping every export it is sent."""

    def __init__(self) -> None:
        self.exports: list[ExportTraceServiceRequest] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                export = ExportTraceServiceRequest()
                export.ParseFromString(body)
                collector.exports.append(export)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans_of(self, service: str) -> list[tuple[str, str, str]]:
        """(trace id, parent span id, span name) of every span `service` exported."""
        found = []
        for export in self.exports:
            for resource_spans in export.resource_spans:
                names = [
                    a.value.string_value
                    for a in resource_spans.resource.attributes
                    if a.key == "service.name"
                ]
                if names != [service]:
                    continue
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        found.append((span.trace_id.hex(), span.parent_span_id.hex(), span.name))
        return found


@pytest.fixture
def collector() -> Iterator[Collector]:
    collector = Collector()
    thread = threading.Thread(target=collector.server.serve_forever, daemon=True)
    thread.start()
    yield collector
    collector.server.shutdown()
    collector.server.server_close()


SERVICES = {
    # owner in HEALTH_QUERIES, module, service.name, extra settings (under tmp_path)
    "workflow": (
        "baton_workflow",
        "workflow",
        {"BATON_DATABASE_URL": "sqlite+aiosqlite:///{tmp}/w.db"},
    ),
    "agent": (
        "baton_agent_runner",
        "agent-runner",
        {
            "BATON_DATABASE_URL": "sqlite+aiosqlite:///{tmp}/a.db",
            "BATON_QDRANT_PATH": "{tmp}/qdrant",
        },
    ),
}


def _spawn(module: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", module], env=env, stdout=out, stderr=subprocess.STDOUT
        )


@pytest.mark.parametrize("owner", sorted(SERVICES))
async def test_a_service_exports_its_span_in_the_callers_trace(
    owner: str, nats_url: str, collector: Collector, tmp_path: Path
) -> None:
    module, service_name, extra = SERVICES[owner]
    env = {
        **os.environ,
        "BATON_NATS_URL": nats_url,
        "BATON_TELEMETRY_ENABLED": "true",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
        **{name: value.format(tmp=tmp_path) for name, value in extra.items()},
    }
    env.pop("OTEL_SERVICE_NAME", None)
    log = tmp_path / "service.log"
    process = _spawn(module, env, log)
    nc = await nats.connect(nats_url)
    try:
        subject = HEALTH_QUERIES[owner]().wire_subject()
        payload = HEALTH_QUERIES[owner]().to_bytes()
        traceparent = f"00-{TRACE_ID}-{CALLER_SPAN_ID}-01"
        for _ in range(600):  # a cold interpreter on a busy CI machine takes seconds to start
            assert process.poll() is None, log.read_text()
            with contextlib.suppress(nats.errors.Error, TimeoutError):
                # The raw round trip, with the caller's trace context in the headers as a
                # traced gateway sends it (this test process has no tracer of its own).
                msg = await nc.request(
                    subject, payload, timeout=0.5, headers={"traceparent": traceparent}
                )
                if msg.data:
                    break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"{module} never answered:\n{log.read_text()}")
    finally:
        await nc.close()
        process.terminate()  # a clean stop flushes the spans still queued
        process.wait(30)
    assert process.returncode == 0, log.read_text()
    spans = collector.spans_of(service_name)
    assert any(
        trace_id == TRACE_ID and parent == CALLER_SPAN_ID for trace_id, parent, _ in spans
    ), (spans, log.read_text())
