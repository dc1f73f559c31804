"""The workflow's health says when its events stop reaching NATS: JetStream refusing them (a
full stream, say) left the outbox growing while every check said all was well. Nothing is
lost meanwhile, and the check clears once they are published. It also says when its SQLite
file's disk is full, which no check said either."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client
from nats.js.api import DiscardPolicy

from baton_contracts import HEALTH_QUERIES, HealthStatus
from baton_contracts.workflow_api import StartWorkflow
from baton_eventstore.disk_room import DiskUsage
from baton_workflow.bootstrap import WorkflowApp, build

from .conftest import FakeAgentRunner, ask, workflow_settings

STALL = 0.5
STREAM = "WORKFLOW_EVT"


@pytest.fixture
async def stalling(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> AsyncIterator[WorkflowApp]:
    app = build(workflow_settings(nats_url, sqlite_url, outbox_stall_seconds=STALL))
    await app.start()
    yield app
    await app.stop()


async def health(client: Client) -> HealthStatus:
    status = await ask(client, HEALTH_QUERIES["workflow"]())
    assert isinstance(status, HealthStatus)
    return status


async def test_health_says_when_events_are_not_published_and_clears_once_they_are(
    stalling: WorkflowApp, client: Client
) -> None:
    js = client.jetstream()
    await ask(client, StartWorkflow(user_id="ida", workflow_id="onboarding"))
    await stalling.relay.drain()  # type: ignore[union-attr]
    assert (await health(client)).checks == {
        "database": True,
        "events_published": True,
        "disk_has_room": True,
    }

    # JetStream takes no more of the workflow's events: the stream is full.
    config = (await js.stream_info(STREAM)).config
    held = (await js.stream_info(STREAM)).state.messages
    config.max_msgs, config.discard = held, DiscardPolicy.NEW
    await js.update_stream(config)
    started = await ask(client, StartWorkflow(user_id="ivo", workflow_id="onboarding"))
    await asyncio.sleep(STALL * 3)
    stalled = await health(client)
    # Still healthy (a restart makes no room in JetStream), but it says what is wrong.
    checks = {"database": True, "events_published": False, "disk_has_room": True}
    assert stalled == HealthStatus(service="workflow", healthy=True, checks=checks)

    config.max_msgs = -1
    await js.update_stream(config)
    for _ in range(100):  # the relay retries at most every 5 s
        if (await health(client)).checks["events_published"]:
            break
        await asyncio.sleep(0.1)
    assert (await health(client)).checks == {
        "database": True,
        "events_published": True,
        "disk_has_room": True,
    }
    # And the event that waited is on the stream now: nothing was lost.
    subject = f"workflow.evt.started.ivo.{started.instance.instance_id}.greeter"
    waited = await js.get_last_msg(STREAM, subject)
    assert waited.data is not None and started.instance.instance_id.encode() in waited.data


async def test_health_says_when_the_sqlite_disk_is_full_and_stays_healthy(
    stalling: WorkflowApp, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every write then fails "database or disk is full" (507), while the database answers
    # and takes the health probe's write, rolled back before a page is written.
    monkeypatch.setattr(shutil, "disk_usage", lambda _: DiskUsage(10 << 30, 10 << 30, 4096))
    status = await health(client)
    checks = {"database": True, "events_published": True, "disk_has_room": False}
    assert status == HealthStatus(service="workflow", healthy=True, checks=checks)
