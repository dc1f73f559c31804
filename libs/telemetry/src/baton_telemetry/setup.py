"""Turning tracing on for one service process, without ever letting a collector stall it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from baton_telemetry.settings import TelemetrySettings

logger = logging.getLogger(__name__)

SECRET_QUERY_PARAMETERS = frozenset({"token"})
"""Query parameters that carry a credential: `/api/events?token=<jwt>` (a browser's
EventSource cannot send a header). Their values never leave the process in a span."""


class RedactSecrets(SpanProcessor):
    """Replaces the value of each `SECRET_QUERY_PARAMETERS` in a span's `url.query` with
    `REDACTED` as the span starts, before any exporter sees it (FastAPI's telemetry redacts
    only the signature parameters of cloud storage URLs)."""

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        """Redact the span's query in place."""
        query = (span.attributes or {}).get("url.query")
        if not isinstance(query, str) or not any(n in query for n in SECRET_QUERY_PARAMETERS):
            return
        pairs = parse_qsl(query, keep_blank_values=True)
        span.set_attribute(
            "url.query",
            urlencode([(k, "REDACTED" if k in SECRET_QUERY_PARAMETERS else v) for k, v in pairs]),
        )


def setup_telemetry(
    service: str, settings: TelemetrySettings | None = None, *, set_global: bool = True
) -> TracerProvider | None:
    """A provider exporting OTLP/HTTP in the background, or None (nothing started) when off."""
    settings = settings or TelemetrySettings()
    if not settings.enabled:
        return None
    timeout = settings.export_timeout_seconds
    # The exporter's timeout bounds one export including its retries; the processor's queue is
    # bounded and drops spans when full, so a missing collector costs spans, never a stall.
    exporter = OTLPSpanExporter(endpoint=settings.traces_endpoint, timeout=timeout)
    processor = BatchSpanProcessor(
        exporter,
        max_queue_size=settings.max_queue_size,
        max_export_batch_size=min(512, settings.max_queue_size),
        export_timeout_millis=timeout * 1000,
    )
    resource = Resource.create({SERVICE_NAME: settings.service_name or service})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(RedactSecrets())  # first: processors run in the order added
    provider.add_span_processor(processor)
    if set_global:
        trace.set_tracer_provider(provider)
    logger.info("tracing %s to %s", settings.service_name or service, settings.traces_endpoint)
    return provider


def shutdown_telemetry(provider: TracerProvider | None) -> None:
    """Flush what is queued (bounded by the export timeout) and stop the export thread."""
    if provider is None:
        return
    try:
        provider.shutdown()
    except Exception:  # shutting down must never take the service's own shutdown with it
        logger.warning("tracing shutdown failed", exc_info=True)


def start_tracing(service: str) -> Callable[[], None]:
    """`setup_telemetry(service)` as the global provider; returns what flushes and stops it.

    What `run_service` (and the gateway) call for a service process, so every service's spans
    reach the collector, not only the gateway's: one trace then spans gateway -> service ->
    service. A bad `BATON_TELEMETRY_*` or `OTEL_*` variable raises pydantic's ValidationError,
    which the caller reports as a bad setting.
    """
    provider = setup_telemetry(service)
    return lambda: shutdown_telemetry(provider)
