"""A start or a signal sent while the workflow service restarts waits for it at the gateway.

With no workflow replica on NATS for a moment (a restart, a rolling deploy), a start or a
signal was answered 503 ("no responders") at once, while a chat turn waited for the replica to
come back. Nothing was done by a request that reached no replica, and both are answered once
(a start returns the user's active instance, a signal is keyed by its `command_id`), so they
now wait the same way, within the gateway's timeout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import nats
import pytest

from baton_auth import mint_token
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.workflow_api import SignalWorkflow, WorkflowSignal
from baton_messaging.requests import request
from baton_notifier.bootstrap import Notifier
from baton_notifier.bootstrap import build as build_notifier
from baton_notifier.settings import NotifierSettings
from baton_workflow.bootstrap import WorkflowApp, build

from .conftest import FakeAgentRunner, workflow_settings

SECRET = "workflow-restart-tests-secret-32-bytes!"
NOT_RUNNING = "the workflow service is not running, or is restarting; nothing was done"


async def gateway_on(nats_url: str, timeout: float) -> Notifier:
    settings = NotifierSettings(
        nats_url=nats_url, jwt_secret=SECRET, request_timeout_seconds=timeout
    )
    notifier = build_notifier(settings)
    await notifier.start()
    assert notifier.link is not None
    await notifier.link.wait_started()
    return notifier


@pytest.fixture
async def http(nats_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The gateway, with time enough for a workflow service to start in the background."""
    notifier = await gateway_on(nats_url, timeout=20.0)
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        yield client
    await notifier.stop()


def auth(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_token(SECRET, user)}"}


async def started_workflow(nats_url: str, sqlite_url: str) -> WorkflowApp:
    app = build(workflow_settings(nats_url, sqlite_url))
    await app.start()
    return app


async def start(http: httpx.AsyncClient, user: str) -> httpx.Response:
    return await http.post("/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(user))


async def events_of(http: httpx.AsyncClient, user: str, instance: str) -> list[str]:
    log = await http.get(f"/api/workflows/{instance}/events", headers=auth(user))
    assert log.status_code == 200, log.text
    return [event["type"] for event in log.json()["events"]]


async def after_a_restart(
    sending: asyncio.Task[httpx.Response], nats_url: str, sqlite_url: str
) -> tuple[httpx.Response, WorkflowApp]:
    """The answer to `sending`, sent while no workflow replica runs, one starting after it."""
    await asyncio.sleep(1.0)  # two sends at least find no replica
    assert not sending.done(), sending.result().text
    app = await started_workflow(nats_url, sqlite_url)
    return await sending, app


@pytest.mark.timeout(60)
async def test_a_start_sent_while_the_workflow_service_restarts_waits_for_it(
    http: httpx.AsyncClient, nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    sending = asyncio.create_task(start(http, "ann"))
    response, app = await after_a_restart(sending, nats_url, sqlite_url)
    try:
        assert response.status_code == 201, response.text
        instance = response.json()["instance_id"]
        active = await http.get("/api/workflows/active", headers=auth("ann"))
        assert [i["instance_id"] for i in active.json()["instances"]] == [instance]
        assert await events_of(http, "ann", instance) == ["workflow.instance_started"]
    finally:
        await app.stop()


@pytest.mark.timeout(60)
async def test_a_signal_sent_while_the_workflow_service_restarts_is_recorded_once(
    http: httpx.AsyncClient, nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    first = await started_workflow(nats_url, sqlite_url)
    try:
        instance = (await start(http, "bea")).json()["instance_id"]
    finally:
        await first.stop()
    body: dict[str, Any] = {"action": "complete_step", "command_id": "sig-1"}
    path = f"/api/workflows/{instance}/signal"
    sending = asyncio.create_task(http.post(path, json=body, headers=auth("bea")))
    response, app = await after_a_restart(sending, nats_url, sqlite_url)
    try:
        assert response.status_code == 200, response.text
        assert response.json()["outcome"] == "blocked"
        again = await http.post(path, json=body, headers=auth("bea"))  # the same command id
        assert again.json() == response.json()
        assert await events_of(http, "bea", instance) == [
            "workflow.instance_started",
            "workflow.signal_received",
            "workflow.step_blocked",
        ]
    finally:
        await app.stop()


@pytest.mark.timeout(30)
async def test_a_start_and_a_signal_nobody_takes_are_answered_503_within_the_timeout(
    nats_url: str,
) -> None:
    notifier = await gateway_on(nats_url, timeout=2.0)
    transport = httpx.ASGITransport(app=notifier.app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
            started = await start(client, "cid")
            signalled = await client.post(
                "/api/workflows/i-1/signal", json={"action": "complete_step"}, headers=auth("cid")
            )
    finally:
        await notifier.stop()
    for response, subject in ((started, "start"), (signalled, "signal")):
        assert response.status_code == 503, response.text
        message = response.json()["error"]["message"]
        # Not "no reply within": the last send found no replica either, before the timeout.
        assert message.startswith(f"no responders on 'workflow.cmd.{subject}"), message
        assert NOT_RUNNING in message


async def test_two_starts_at_once_start_one_instance(
    workflow: WorkflowApp, http: httpx.AsyncClient
) -> None:
    answers = await asyncio.gather(*(start(http, "dee") for _ in range(4)))
    assert sorted(a.status_code for a in answers) == [200, 200, 200, 201]
    assert len({a.json()["instance_id"] for a in answers}) == 1
    active = await http.get("/api/workflows/active", headers=auth("dee"))
    assert len(active.json()["instances"]) == 1


async def test_a_signal_arriving_with_too_little_of_its_callers_time_records_nothing(
    workflow: WorkflowApp, http: httpx.AsyncClient, nats_url: str
) -> None:
    # A signal the gateway sent again while the service restarted arrives late. Timed from
    # its own arrival (2.5 s), it could be recorded after the gateway had answered 503; it
    # now carries the gateway's deadline, and one too near for its append (a statement's
    # 2 s) is refused with nothing recorded, as a late chat turn is.
    instance = (await start(http, "eve")).json()["instance_id"]
    late = SignalWorkflow(
        user_id="eve",
        instance_id=instance,
        command_id="late-1",
        signal=WorkflowSignal(action="complete_step"),
        deadline=datetime.now(UTC) + timedelta(seconds=1.0),
    )
    nc = await nats.connect(nats_url)
    try:
        with pytest.raises(RemoteError) as refused:
            await request(nc, late, timeout=5.0)
    finally:
        await nc.close()
    assert refused.value.code is ErrorCode.UNAVAILABLE, refused.value.body
    assert "nothing was recorded" in refused.value.body.message
    assert await events_of(http, "eve", instance) == ["workflow.instance_started"]


async def test_starts_racing_on_two_replicas_of_one_database_start_one_instance(
    http: httpx.AsyncClient, nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner
) -> None:
    # A start resent while a replica restarts may meet the user's own second start on the
    # other replica: the active instance's unique index keeps them to one.
    replicas = [await started_workflow(nats_url, postgres_url) for _ in range(2)]
    try:
        answers = await asyncio.gather(*(start(http, "fay") for _ in range(6)))
    finally:
        for replica in replicas:
            await replica.stop()
    assert [a.status_code for a in answers].count(201) == 1, [a.text for a in answers]
    assert {a.status_code for a in answers} == {200, 201}
    assert len({a.json()["instance_id"] for a in answers}) == 1
