"""A turn whose PostgreSQL connection is cut at its append's commit (`CuttingProxy`): the
commit took effect and its answer was lost, or it never reached the server.

While the server still answers, the store looks the append up and the turn is answered as
usual. When the server went away with the connection, the caller is told `unavailable` at
once, with the answer that does not promise nothing was recorded (it may have been); sent
again with the same command_id once the server is back, the turn is recorded exactly once,
the read row agrees with the log, and each of its events is published once."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client
from sqlalchemy import select

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.workflow_api import RecordExchange, StartWorkflow, WorkflowSignal
from baton_workflow.adapters.instances import stream_id
from baton_workflow.adapters.read_model import workflow_instances
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.entrypoints.subscribers import STORE_UNAVAILABLE

from ...cutting_proxy import FATES, CuttingProxy
from .conftest import FakeAgentRunner, ask, on_stream, workflow_settings

pytestmark = pytest.mark.postgres

COMPLETE = WorkflowSignal(action="complete_step")
TURN = ["workflow.exchange_recorded", "workflow.signal_received", "workflow.step_changed"]
"""What the cut turn (an exchange closing the greeting) records."""


@pytest.fixture
async def proxy(postgres_url: str) -> AsyncIterator[CuttingProxy]:
    async with CuttingProxy(postgres_url).running() as proxy:
        yield proxy


@pytest.fixture
async def app(
    nats_url: str, proxy: CuttingProxy, agent_runner: FakeAgentRunner
) -> AsyncIterator[WorkflowApp]:
    app = build(workflow_settings(nats_url, proxy.proxied_url))
    await app.start()
    yield app
    await proxy.come_back()  # a test that failed while it was down: the service stops cleanly
    await app.stop()


async def logged(app: WorkflowApp, instance: str) -> list[str]:
    """The instance's event types, checked to hold versions 1..n, and its read row to be at
    the log's version."""
    events = await app.store.load(stream_id(instance))
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    row = workflow_instances.c
    query = select(row.version).where(row.instance_id == instance)
    assert (await app.store.read(query)).scalar_one() == len(events)
    return [e.type for e in events]


async def published(client: Client, app: WorkflowApp, user: str) -> Counter[str]:
    """How often each of the user's events is on the workflow's stream, once the relay has
    published what the outbox holds."""
    assert app.relay is not None
    await app.relay.drain()
    assert await app.store.outbox.count() == 0
    return await on_stream(client, user)


async def started(client: Client, user: str) -> str:
    reply = await ask(client, StartWorkflow(user_id=user, workflow_id="onboarding"))
    instance = str(reply.instance.instance_id)
    await ask(client, RecordExchange(user_id=user, instance_id=instance, command_id="c0"))
    return instance


@pytest.mark.parametrize("delivered", FATES)
async def test_a_turn_cut_at_its_commit_is_answered_and_recorded_once(
    app: WorkflowApp, proxy: CuttingProxy, client: Client, delivered: bool
) -> None:
    user = f"cut-{uuid.uuid4().hex[:8]}"
    instance = await started(client, user)
    before = await logged(app, instance)
    turn = RecordExchange(user_id=user, instance_id=instance, command_id="c1", signal=COMPLETE)
    proxy.cut_at_commit(delivered=delivered)
    reply = await ask(client, turn)
    assert proxy.cuts == 1
    assert reply.instance.current_step == "discovery"
    after = await logged(app, instance)
    assert after == [*before, *TURN]
    assert (await ask(client, turn)).instance.current_step == "discovery"  # a replay
    assert await logged(app, instance) == after
    assert set((await published(client, app, user)).values()) == {1}


@pytest.mark.parametrize("delivered", FATES)
async def test_a_turn_cut_as_the_database_goes_away_is_503_and_counts_once_when_sent_again(
    app: WorkflowApp, proxy: CuttingProxy, client: Client, delivered: bool
) -> None:
    user = f"gone-{uuid.uuid4().hex[:8]}"
    instance = await started(client, user)
    before = await logged(app, instance)
    turn = RecordExchange(user_id=user, instance_id=instance, command_id="c1", signal=COMPLETE)
    proxy.cut_at_commit(delivered=delivered, going_down=True)
    with pytest.raises(RemoteError) as failed:
        await ask(client, turn)
    assert proxy.cuts == 1
    # Not "nothing was recorded: send it again": the turn may have been, and was when the
    # commit had taken effect.
    assert (failed.value.code, failed.value.body.message) == (
        ErrorCode.UNAVAILABLE,
        STORE_UNAVAILABLE,
    )
    await proxy.come_back()
    recorded = await logged(app, instance)
    assert recorded == ([*before, *TURN] if delivered else before)
    reply = await ask(client, turn)  # the client's retry, with the same command_id
    assert reply.instance.current_step == "discovery"
    after = await logged(app, instance)  # when it had taken effect: a replay of the log
    assert after == [*before, *TURN]
    counts = await published(client, app, user)
    assert set(counts.values()) == {1}
    stored = {str(e.event_id) for e in await app.store.load(stream_id(instance))}
    assert set(counts) <= stored
