"""The workflow service tells the agent-runner when it stops waiting for a turn."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from baton_contracts.agent_api import AgentReply, RunAgent
from baton_messaging import MessagingSettings, build_broker, respond, start_broker
from baton_workflow.adapters.agent_runner import NatsAgents


async def test_a_turn_carries_the_moment_the_service_stops_waiting(nats_url: str) -> None:
    asked: list[RunAgent] = []

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        return AgentReply(message="hello")

    runner = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner")
    respond(runner, RunAgent, agent, queue="agent")
    await start_broker(runner)
    workflow = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(workflow)
    try:
        turn = RunAgent(
            user_id="alice",
            agent="greeter",
            instance_id="i-1",
            current_step="greeting",
            message="hi",
            idempotency_key="i-1:m-1",
        )
        before = datetime.now(UTC)
        reply = await NatsAgents(workflow, timeout=35.0).run(turn)
        after = datetime.now(UTC)
    finally:
        await workflow.stop()
        await runner.stop()
    assert reply.message == "hello"
    deadline = asked[0].deadline
    assert deadline is not None
    assert before + timedelta(seconds=35) <= deadline <= after + timedelta(seconds=35)
    assert asked[0].model_copy(update={"deadline": None}) == turn
