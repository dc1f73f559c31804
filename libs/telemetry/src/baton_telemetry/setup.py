"""Turning tracing on for one service process, without ever letting a collector stall it."""

from __future__ import annotations

import logging
from collections.abc import Callable

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from baton_telemetry.settings import TelemetrySettings

logger = logging.getLogger(__name__)


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
