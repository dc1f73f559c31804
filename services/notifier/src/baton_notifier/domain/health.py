"""What the gateway reports about the services behind it."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from baton_contracts import HealthStatus


class ServiceState(StrEnum):
    """One owner as seen from the gateway."""

    HEALTHY = "healthy"
    UNHEALTHY = "unhealthy"
    UNREACHABLE = "unreachable"


class ServiceReport(BaseModel):
    """One owner's state, its dependency checks, and why when it is not healthy."""

    model_config = ConfigDict(frozen=True)

    status: ServiceState
    checks: dict[str, bool] = Field(default_factory=dict)
    detail: str | None = None


def report_of(status: HealthStatus) -> ServiceReport:
    """The report for an owner that answered its health query."""
    state = ServiceState.HEALTHY if status.healthy else ServiceState.UNHEALTHY
    failing = ", ".join(sorted(name for name, ok in status.checks.items() if not ok))
    detail: str | None
    if not status.healthy:
        detail = "the service reports itself unhealthy"
        detail += f" (failing: {failing})" if failing else ""
    else:  # a check that does not decide its health: the workflow's events_published, say
        detail = f"working, but failing: {failing}" if failing else None
    return ServiceReport(status=state, checks=status.checks, detail=detail)


def unreachable(detail: str) -> ServiceReport:
    """The report for an owner that did not answer."""
    return ServiceReport(status=ServiceState.UNREACHABLE, detail=detail)
