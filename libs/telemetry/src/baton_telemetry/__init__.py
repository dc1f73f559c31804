"""Tracing for Baton services: OTLP/HTTP when enabled, nothing at all when not; and which
failed tries of a retrying loop to log (`baton_telemetry.outages`)."""

from baton_telemetry.settings import TelemetrySettings
from baton_telemetry.setup import setup_telemetry, shutdown_telemetry, start_tracing
from baton_telemetry.urls import checked_http_url

__all__ = [
    "TelemetrySettings",
    "checked_http_url",
    "setup_telemetry",
    "shutdown_telemetry",
    "start_tracing",
]
