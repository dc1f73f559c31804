"""Restarts and concurrent writers: the log decides, nothing is lost or doubled."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from nats.aio.client import Client

from baton_contracts.workflow_api import (
    GetInstance,
    GetInstanceEvents,
    RecordExchange,
    SignalWorkflow,
    StartWorkflow,
    WorkflowSignal,
)
from baton_workflow.bootstrap import build

from .conftest import FakeAgentRunner, ask, workflow_settings
from .test_kill import spawn, wait_healthy

COMPLETE = WorkflowSignal(action="complete_step")


async def test_a_restarted_service_continues_from_the_same_step(
    nats_url: str, sqlite_url: str, client: Client, agent_runner: FakeAgentRunner
) -> None:
    first = build(workflow_settings(nats_url, sqlite_url))
    await first.start()
    reply = await ask(client, StartWorkflow(user_id="rita", workflow_id="onboarding"))
    instance = reply.instance.instance_id
    for n in range(3):
        signal = COMPLETE if n == 1 else None
        await ask(
            client,
            RecordExchange(user_id="rita", instance_id=instance, command_id=f"c{n}", signal=signal),
        )
    await first.stop()

    second = build(workflow_settings(nats_url, sqlite_url))
    await second.start()
    try:
        view = await ask(client, GetInstance(user_id="rita", instance_id=instance))
        assert (view.current_step, view.messages_in_step) == ("discovery", 1)
        assert view.context["steps_completed"] == ["greeting"]
        again = await ask(
            client, RecordExchange(user_id="rita", instance_id=instance, command_id="c3")
        )
        assert again.instance.messages_in_step == 2
    finally:
        await second.stop()


async def _two_replicas_race(nats_url: str, database_url: str, client: Client) -> None:
    replicas = [build(workflow_settings(nats_url, database_url)) for _ in range(2)]
    for replica in replicas:
        await replica.start()
    try:
        reply = await ask(client, StartWorkflow(user_id="sam", workflow_id="onboarding"))
        instance = reply.instance.instance_id
        commands = [
            RecordExchange(user_id="sam", instance_id=instance, command_id=uuid.uuid4().hex)
            for _ in range(8)
        ]
        replies = await asyncio.gather(*(ask(client, c, timeout=15) for c in commands))
        assert sorted(r.instance.messages_in_step for r in replies) == list(range(1, 9))
        log = await ask(client, GetInstanceEvents(user_id="sam", instance_id=instance))
        assert [e.version for e in log.events] == list(range(1, 10))
        transition = [
            SignalWorkflow(user_id="sam", instance_id=instance, command_id=f"s{i}", signal=COMPLETE)
            for i in range(4)
        ]
        outcomes = await asyncio.gather(*(ask(client, c, timeout=15) for c in transition))
        assert sorted(o.outcome for o in outcomes).count("transitioned") == 1
    finally:
        for replica in replicas:
            await replica.stop()


async def test_two_replicas_on_sqlite_record_every_exchange_once(
    nats_url: str, sqlite_url: str, client: Client, agent_runner: FakeAgentRunner
) -> None:
    await _two_replicas_race(nats_url, sqlite_url, client)


@pytest.mark.postgres
async def test_two_replicas_on_postgres_record_every_exchange_once(
    nats_url: str, postgres_url: str, client: Client, agent_runner: FakeAgentRunner
) -> None:
    await _two_replicas_race(nats_url, postgres_url, client)


@pytest.mark.postgres
async def test_two_service_processes_on_postgres_lose_and_double_nothing(
    nats_url: str,
    postgres_url: str,
    client: Client,
    agent_runner: FakeAgentRunner,
    tmp_path: Path,
) -> None:
    processes = [spawn(nats_url, postgres_url, tmp_path / f"workflow-{i}.log") for i in range(2)]
    try:
        for process in processes:
            await wait_healthy(client, process)
        reply = await ask(client, StartWorkflow(user_id="pia", workflow_id="onboarding"))
        instance = reply.instance.instance_id
        commands = [
            RecordExchange(user_id="pia", instance_id=instance, command_id=uuid.uuid4().hex)
            for _ in range(8)  # below greeting's max_messages (10), which would force a move
        ]
        replies = await asyncio.gather(*(ask(client, c, timeout=15) for c in commands))
        assert sorted(r.instance.messages_in_step for r in replies) == list(range(1, 9))
        signals = [
            SignalWorkflow(user_id="pia", instance_id=instance, command_id=f"p{i}", signal=COMPLETE)
            for i in range(6)
        ]
        outcomes = await asyncio.gather(*(ask(client, c, timeout=15) for c in signals))
        assert [o.outcome for o in outcomes].count("transitioned") == 1
        log = await ask(client, GetInstanceEvents(user_id="pia", instance_id=instance))
        assert [e.version for e in log.events] == list(range(1, len(log.events) + 1))
        assert all(p.poll() is None for p in processes)
    finally:
        for process in processes:
            process.terminate()
            process.wait(15)
