from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from baton_contracts import ErrorCode, HealthStatus, Query, RemoteError
from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings, SettingsError, load_settings

from .conftest import SECRET


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


async def test_services_reports_only_the_services_it_is_told_this_deployment_runs(
    requester: Any, connection: Any, auth: dict[str, str]
) -> None:
    requester.answer = lambda query: HealthStatus(
        service=query.subject.owner, healthy=True, checks={"nats": True}
    )
    settings = NotifierSettings(
        jwt_secret=SECRET, health_services=["workflow", "agent", "notifier"]
    )
    app = build(settings, requester=requester, connection=connection).app
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        services = (await client.get("/api/services", headers=auth)).json()["services"]
    assert sorted(services) == ["agent", "notifier", "workflow"]
    assert {s["status"] for s in services.values()} == {"healthy"}
    assert sorted(q.subject.owner for q in requester.sent) == ["agent", "notifier", "workflow"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (
            '["workflow", "spaces"]',
            "BATON_HEALTH_SERVICES: unknown service(s) 'spaces'; the services are agent, "
            "notifier, space, trigger, workflow",
        ),
        ("[]", "BATON_HEALTH_SERVICES"),
        ("workflow", "BATON_HEALTH_SERVICES: not valid JSON (a list or mapping is JSON)"),
    ],
)
def test_an_unknown_or_empty_health_services_list_is_refused_by_its_name(
    monkeypatch: pytest.MonkeyPatch, value: str, said: str
) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
    monkeypatch.setenv("BATON_HEALTH_SERVICES", value)
    with pytest.raises(SettingsError) as refused:
        load_settings()
    assert said in str(refused.value)
