"""Concurrent signals on one instance across replicas on PostgreSQL: every one is applied,
none answered `conflict: busy` while the instance keeps moving (others' writes winning)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client

from baton_contracts import RemoteError
from baton_contracts.workflow_api import SignalWorkflow, WorkflowSignal
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.service.handlers import take_turn

from .conftest import FakeAgentRunner, workflow_settings
from .test_onboarding_flow import start


@pytest.fixture
async def replicas(
    nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner
) -> AsyncIterator[list[WorkflowApp]]:
    apps = [build(workflow_settings(nats_url, postgres_url)) for _ in range(3)]
    for app in apps:
        await app.start()
    yield apps
    for app in apps:
        await app.stop()


@pytest.mark.postgres
async def test_concurrent_signals_on_three_replicas_are_all_applied(
    replicas: list[WorkflowApp], client: Client
) -> None:
    instance = await start(client, "busy-1")
    n = 150

    async def signal(k: int) -> str:
        cmd = SignalWorkflow(
            user_id="busy-1",
            instance_id=instance,
            command_id=f"s{k}",
            signal=WorkflowSignal(action="stay", shared={f"k{k}": k}),
        )
        try:
            await take_turn(replicas[k % 3].services, cmd)
        except RemoteError as exc:
            return exc.body.message
        return "ok"

    outcomes = await asyncio.gather(*(signal(k) for k in range(n)))
    refused = [o for o in outcomes if o != "ok"]
    assert refused == [], f"{len(refused)} of {n} refused: {refused[:2]}"
    loaded = await replicas[0].services.repo.load(instance)
    assert loaded is not None and loaded.state.version == 1 + n  # each one applied, once
