"""The workflow's resend of a turn, queued in the agent-runner behind a call that then fails,
neither calls the model again nor keeps anything after the workflow answered that nothing was
recorded (found by a review of the turn path: it called the model a second time and kept the
turn's items and reply a moment after the 503)."""

from __future__ import annotations

import asyncio

import pytest
from faststream.nats import NatsBroker
from nats.aio.client import Client

import baton_workflow.adapters.agent_runner as workflow_agents
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.bootstrap import build
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.service.ports import ModelAnswer, ModelUnavailable, ToolContext
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import InboxItems, ListInboxItems, RunAgent
from baton_messaging import request

from .conftest import settings


class FailsFirst(AgentFactory):
    """A slow endpoint whose first call fails after the workflow has sent the turn again."""

    def __init__(self) -> None:
        super().__init__(OpenAISettings(None, "x", 5.0, 0))
        self.calls = 0

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        self.calls += 1
        if self.calls == 1:
            await asyncio.sleep(0.6)
            raise ModelUnavailable("APITimeoutError")
        return await super().answer(profile, turn, tools)


async def test_a_resent_turn_behind_a_failed_call_is_answered_with_its_failure(
    nats_url: str, sqlite_url: str, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = FailsFirst()
    app = build(settings(nats_url, sqlite_url), agents=model)
    await app.start()
    broker = NatsBroker(nats_url)
    await broker.start()
    try:
        monkeypatch.setattr(workflow_agents, "RESEND_AFTER", 0.2)  # 5 s in production
        agents = workflow_agents.NatsAgents(broker, timeout=5.0)
        turn = RunAgent(
            user_id="u", agent="inbox_collector", instance_id="i", current_step="brain_dump",
            message="buy milk; call mum; fix the bike", idempotency_key="i:m-1",
        )  # fmt: skip
        with pytest.raises(RemoteError) as caught:
            await agents.run(turn)
        assert caught.value.code == ErrorCode.UNAVAILABLE
        await asyncio.sleep(1.0)  # what a repeat still queued would have done by now
        seen = await request(client, ListInboxItems(user_id="u", limit=50), timeout=5)
        assert isinstance(seen, InboxItems)
        assert (model.calls, seen.items) == (1, [])
        # The user's retry (a new send, a new deadline) is answered, once.
        await agents.run(turn)
        seen = await request(client, ListInboxItems(user_id="u", limit=50), timeout=5)
        assert isinstance(seen, InboxItems)
        assert model.calls == 2 and len(seen.items) == 3
    finally:
        await broker.stop()
        await app.stop()
