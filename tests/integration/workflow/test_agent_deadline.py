"""The workflow service tells the agent-runner when it stops waiting for a turn, and asks again,
until then, a turn that no agent-runner took or whose agent-runner stopped before answering."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from faststream.nats import NatsBroker

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_messaging import MessagingSettings, build_broker, respond, start_broker
from baton_workflow.adapters.agent_runner import NatsAgents

Answer = Callable[[RunAgent], Awaitable[AgentReply]]
StartAgentRunner = Callable[[Answer], Awaitable[None]]

TURN = RunAgent(
    user_id="alice",
    agent="greeter",
    instance_id="i-1",
    current_step="greeting",
    message="hi",
    idempotency_key="i-1:m-1",
)


def hello(asked: list[RunAgent]) -> Answer:
    """An agent that notes each turn it is asked and answers "hello"."""

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        return AgentReply(message="hello")

    return agent


@pytest.fixture
async def workflow(nats_url: str) -> AsyncIterator[NatsBroker]:
    """The workflow service's side: a started broker."""
    broker = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(broker)
    yield broker
    await broker.stop()


@pytest.fixture
async def start_agent_runner(nats_url: str) -> AsyncIterator[StartAgentRunner]:
    """Starts a fake agent-runner answering `agent.cmd.run` with the function given."""
    runners: list[NatsBroker] = []

    async def start(answer: Answer) -> None:
        runner = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner")
        respond(runner, RunAgent, answer, queue="agent")
        await start_broker(runner)
        runners.append(runner)

    yield start
    for runner in runners:
        await runner.stop()


async def test_a_turn_carries_the_moment_the_service_stops_waiting(
    workflow: NatsBroker, start_agent_runner: StartAgentRunner
) -> None:
    asked: list[RunAgent] = []
    await start_agent_runner(hello(asked))
    before = datetime.now(UTC)
    reply = await NatsAgents(workflow, timeout=35.0).run(TURN)
    after = datetime.now(UTC)
    assert reply.message == "hello"
    deadline = asked[0].deadline
    assert deadline is not None
    assert before + timedelta(seconds=35) <= deadline <= after + timedelta(seconds=35)
    assert asked[0].model_copy(update={"deadline": None}) == TURN


async def test_a_turn_no_agent_runner_took_is_asked_again_until_one_answers(
    workflow: NatsBroker, start_agent_runner: StartAgentRunner
) -> None:
    asked: list[RunAgent] = []
    turn = asyncio.create_task(NatsAgents(workflow, timeout=10.0).run(TURN))
    await asyncio.sleep(0.8)  # the agent-runner is restarting: nobody takes the turn
    assert not turn.done()
    await start_agent_runner(hello(asked))
    reply = await asyncio.wait_for(turn, 5)
    assert reply.message == "hello" and len(asked) == 1


async def test_a_turn_whose_agent_runner_stopped_is_asked_again_under_its_key(
    workflow: NatsBroker, start_agent_runner: StartAgentRunner
) -> None:
    asked: list[RunAgent] = []

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        if len(asked) == 1:  # what a replica that stops mid-turn answers
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, "RunAgent: the service stopped before answering; try again"
            )
        return AgentReply(message="hello")

    await start_agent_runner(agent)
    reply = await NatsAgents(workflow, timeout=10.0).run(TURN)
    assert reply.message == "hello"
    assert [(a.idempotency_key, a.deadline) for a in asked] == [("i-1:m-1", asked[0].deadline)] * 2


async def test_an_agent_runner_that_gave_up_on_the_turn_is_not_asked_again(
    workflow: NatsBroker, start_agent_runner: StartAgentRunner
) -> None:
    asked: list[RunAgent] = []

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        raise RemoteError.of(ErrorCode.UNAVAILABLE, "agent greeter did not answer in time")

    await start_agent_runner(agent)
    with pytest.raises(RemoteError, match="did not answer in time"):
        await NatsAgents(workflow, timeout=10.0).run(TURN)
    assert len(asked) == 1


async def test_with_no_agent_runner_the_turn_fails_by_its_deadline(workflow: NatsBroker) -> None:
    began = time.monotonic()
    with pytest.raises(RemoteError) as caught:
        await NatsAgents(workflow, timeout=1.5).run(TURN)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "no responders" in caught.value.body.message
    assert 1.0 <= time.monotonic() - began < 5
