"""Tracing is off unless asked for, and a missing collector never stalls a service."""

from __future__ import annotations

import logging
import threading

import pytest
from pydantic import ValidationError

from baton_telemetry import TelemetrySettings, setup_telemetry, shutdown_telemetry
from tests.held_ports import held_port

ENV = (
    "BATON_TELEMETRY_ENABLED",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_SERVICE_NAME",
    "BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def test_off_by_default_starts_nothing() -> None:
    threads = set(threading.enumerate())
    assert setup_telemetry("workflow", set_global=False) is None
    assert set(threading.enumerate()) == threads
    shutdown_telemetry(None)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_TELEMETRY_ENABLED", "true")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "wf-eu")
    monkeypatch.setenv("BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS", "0.5")
    settings = TelemetrySettings()
    assert settings.enabled is True
    assert settings.traces_endpoint == "http://collector:4318/v1/traces"
    assert settings.service_name == "wf-eu"
    assert settings.export_timeout_seconds == 0.5


def test_a_bad_timeout_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS", "-1")
    with pytest.raises(ValidationError, match="BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS"):
        TelemetrySettings()


def test_resource_carries_the_service_name() -> None:
    settings = TelemetrySettings(enabled=True, otlp_endpoint=f"http://127.0.0.1:{held_port()}")
    provider = setup_telemetry("workflow", settings, set_global=False)
    assert provider is not None
    assert provider.resource.attributes["service.name"] == "workflow"
    shutdown_telemetry(provider)


@pytest.mark.timeout(8)  # the default OTLP timeout (10 s) would overrun this
def test_missing_collector_logs_and_never_stalls(caplog: pytest.LogCaptureFixture) -> None:
    settings = TelemetrySettings(
        enabled=True,
        otlp_endpoint=f"http://127.0.0.1:{held_port()}",  # nothing listens there
        export_timeout_seconds=0.5,
    )
    provider = setup_telemetry("workflow", settings, set_global=False)
    assert provider is not None
    tracer = provider.get_tracer("test")
    with caplog.at_level(logging.WARNING):
        for i in range(100):
            with tracer.start_as_current_span(f"step {i}"):
                pass
        shutdown_telemetry(provider)
    assert any("export" in r.getMessage().lower() for r in caplog.records)
