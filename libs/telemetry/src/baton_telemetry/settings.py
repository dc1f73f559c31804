"""Tracing settings, read from the standard OTEL_* variables and Baton's own BATON_* ones."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_telemetry.urls import checked_http_url


class TelemetrySettings(BaseSettings):
    """Whether to export traces, and where; off unless `BATON_TELEMETRY_ENABLED` is true."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    enabled: bool = Field(default=False, validation_alias="BATON_TELEMETRY_ENABLED")
    otlp_endpoint: str = Field(
        default="http://127.0.0.1:4318", validation_alias="OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    service_name: str | None = Field(default=None, validation_alias="OTEL_SERVICE_NAME")
    export_timeout_seconds: float = Field(
        default=2.0, gt=0, validation_alias="BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS"
    )
    max_queue_size: int = Field(default=2048, gt=0, validation_alias="BATON_TELEMETRY_MAX_QUEUE")

    @field_validator("otlp_endpoint")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # Taken as it was, `notaurl` started the service, which then logged "tracing to
        # notaurl/v1/traces" and exported nothing.
        return checked_http_url(value, example="http://127.0.0.1:4318")

    @property
    def traces_endpoint(self) -> str:
        """The OTLP/HTTP traces URL: the base endpoint plus `/v1/traces`, as the spec says."""
        base = self.otlp_endpoint.rstrip("/")
        return base if base.endswith("/v1/traces") else f"{base}/v1/traces"
