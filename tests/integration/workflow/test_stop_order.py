"""A stop (SIGTERM) lets the turns in flight finish and publishes what they committed.

The relay used to stop before the responders: a turn answered during the stop's grace
committed its events after that, and they waited in the outbox until the service started
again, days later maybe, while its client had been told the step moved (found by a review of
the SQLite path).
"""

from __future__ import annotations

import asyncio
import uuid

from nats.aio.client import Client
from sqlalchemy import text

from baton_contracts.workflow_api import RecordExchange, StartWorkflow, TurnReply, WorkflowSignal
from baton_eventstore import SqlEventStore
from baton_workflow.bootstrap import build

from .conftest import FakeAgentRunner, ask, workflow_settings

DONE = WorkflowSignal(action="complete_step")


async def test_a_turn_answered_during_a_stop_is_published(
    nats_url: str, sqlite_url: str, client: Client, agent_runner: FakeAgentRunner
) -> None:
    app = build(workflow_settings(nats_url, sqlite_url))
    await app.start()
    user = f"s{uuid.uuid4().hex[:6]}"
    agent_runner.facts[user] = 3
    start = await ask(client, StartWorkflow(user_id=user, workflow_id="onboarding"))
    instance = start.instance.instance_id

    def exchange(n: int, signal: WorkflowSignal | None) -> RecordExchange:
        return RecordExchange(user_id=user, instance_id=instance, command_id=f"c{n}", signal=signal)

    for n, signal in enumerate([None, DONE, None, None, None, None]):  # on to discovery, 5 said
        await ask(client, exchange(n, signal))
    agent_runner.delay = 0.6  # discovery's memory_facts checker answers after 0.6 s
    turn = asyncio.create_task(ask(client, exchange(6, DONE), timeout=10))
    await asyncio.sleep(0.3)  # the turn waits on its checker
    await app.stop()
    reply = await turn
    assert isinstance(reply, TurnReply) and reply.outcome == "transitioned"
    store = await SqlEventStore.from_url(sqlite_url)
    try:
        async with store.engine.connect() as conn:
            left = (await conn.execute(text("SELECT subject FROM outbox"))).scalars().all()
    finally:
        await store.close()
    assert left == []
