"""What the notifier answers over NATS: its own health query."""

from __future__ import annotations

from faststream.nats import NatsBroker

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
from baton_messaging.responders import respond

SERVICE = "notifier"
HealthQuery = HEALTH_QUERIES[SERVICE]


async def answer_health(_: Query) -> HealthStatus:
    """The notifier is healthy whenever it can receive this: the query came over NATS."""
    return HealthStatus(service=SERVICE, healthy=True, checks={"nats": True})


def register_responders(broker: NatsBroker) -> NatsBroker:
    """Subscribe every notifier responder on `broker` (before it starts); returns the broker."""
    respond(broker, HealthQuery, answer_health, queue=SERVICE)
    return broker
