"""Tracing for Baton services: OTLP/HTTP when enabled, nothing at all when not."""

from baton_telemetry.settings import TelemetrySettings
from baton_telemetry.setup import setup_telemetry, shutdown_telemetry, start_tracing

__all__ = ["TelemetrySettings", "setup_telemetry", "shutdown_telemetry", "start_tracing"]
