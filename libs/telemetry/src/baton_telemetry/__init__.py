"""Tracing for Baton services: OTLP/HTTP when enabled, nothing at all when not; and which
failed tries of a retrying loop to log (`baton_telemetry.outages`).

Each name is imported from its module when first used, not with the package: a service's
settings import `baton_telemetry.urls` before the service checks them, and that must not
import the OpenTelemetry SDK (a bad setting is said before the service's heavy imports).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baton_telemetry.settings import TelemetrySettings
    from baton_telemetry.setup import setup_telemetry, shutdown_telemetry, start_tracing
    from baton_telemetry.urls import checked_http_url

_MODULE_OF = {
    "TelemetrySettings": "settings",
    "checked_http_url": "urls",
    "setup_telemetry": "setup",
    "shutdown_telemetry": "setup",
    "start_tracing": "setup",
}

__all__ = [
    "TelemetrySettings",
    "checked_http_url",
    "setup_telemetry",
    "shutdown_telemetry",
    "start_tracing",
]


def __getattr__(name: str) -> Any:
    """The public `name`, imported from its module on first use."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
