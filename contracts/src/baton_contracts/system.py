"""Messages every service answers: health, so `baton up` and operators can ask any owner."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from baton_contracts.base import OWNERS, Kind, Query, ReplyModel, Subject


class HealthStatus(BaseModel):
    """A service's answer: its name, whether it can do its work, and per-dependency checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    service: str
    healthy: bool
    checks: dict[str, bool] = {}
    version: str = "0.1.0"


def _health(owner: str) -> type[Query]:
    class _Health(Query):
        type: str = f"{owner}.health"
        subject: ClassVar[Subject] = Subject(owner=owner, kind=Kind.QUERY, name="health")
        reply_model: ClassVar[ReplyModel] = HealthStatus

    _Health.__name__ = _Health.__qualname__ = f"{owner.capitalize()}HealthQuery"
    return _Health


HEALTH_QUERIES: dict[str, type[Query]] = {owner: _health(owner) for owner in sorted(OWNERS)}
"""`<owner>.query.health` for every owner; the reply is a `HealthStatus`."""
