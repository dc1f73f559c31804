from typing import Any

import httpx
from pydantic import BaseModel

from baton_contracts import ErrorCode, HealthStatus, Query, RemoteError


async def test_health_is_200_while_nats_is_connected(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"nats": True}}


async def test_health_is_503_when_nats_is_not_connected(
    client: httpx.AsyncClient, connection: Any
) -> None:
    connection.is_connected = False
    response = await client.get("/health")
    assert response.status_code == 503
    assert response.json()["checks"] == {"nats": False}


async def test_services_reports_each_owner_by_whether_it_answered(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    def answer(query: Query) -> BaseModel:
        owner = query.subject.owner
        if owner == "trigger":
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "no reply on 'trigger.query.health'")
        return HealthStatus(service=owner, healthy=owner != "space", checks={"nats": True})

    requester.answer = answer
    response = await client.get("/api/services", headers=auth)
    assert response.status_code == 200
    services = response.json()["services"]
    assert {name: s["status"] for name, s in services.items()} == {
        "agent": "healthy",
        "notifier": "healthy",
        "space": "unhealthy",
        "trigger": "unreachable",
        "workflow": "healthy",
    }
    assert services["trigger"]["detail"] == "no reply on 'trigger.query.health'"
    assert requester.timeouts == [1.5] * 5


async def test_services_name_the_checks_that_fail(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    def answer(query: Query) -> BaseModel:
        owner = query.subject.owner
        if owner == "workflow":  # working, but its events do not reach NATS
            checks = {"database": True, "events_published": False}
            return HealthStatus(service=owner, healthy=True, checks=checks)
        if owner == "agent":
            return HealthStatus(service=owner, healthy=False, checks={"database": False})
        return HealthStatus(service=owner, healthy=True, checks={"nats": True})

    requester.answer = answer
    services = (await client.get("/api/services", headers=auth)).json()["services"]
    assert services["workflow"]["status"] == "healthy"
    assert services["workflow"]["detail"] == "working, but failing: events_published"
    assert services["workflow"]["checks"] == {"database": True, "events_published": False}
    assert services["agent"]["detail"] == "the service reports itself unhealthy (failing: database)"
    assert services["notifier"]["detail"] is None
