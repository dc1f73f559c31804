"""The workflow service tells the agent-runner when it stops waiting for a turn, and asks again,
until then, a turn that no agent-runner took or whose agent-runner stopped before answering."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton_contracts import ErrorCode, RemoteError
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


def _turn() -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent="greeter",
        instance_id="i-1",
        current_step="greeting",
        message="hi",
        idempotency_key="i-1:m-1",
    )


async def _agent_runner(nats_url: str, answer: Any) -> Any:
    runner = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner")
    respond(runner, RunAgent, answer, queue="agent")
    await start_broker(runner)
    return runner


async def test_a_turn_no_agent_runner_took_is_asked_again_until_one_answers(
    nats_url: str,
) -> None:
    asked: list[RunAgent] = []

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        return AgentReply(message="hello")

    workflow = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(workflow)
    runner = None
    try:
        turn = asyncio.create_task(NatsAgents(workflow, timeout=10.0).run(_turn()))
        await asyncio.sleep(0.8)  # the agent-runner is restarting: nobody takes the turn
        assert not turn.done()
        runner = await _agent_runner(nats_url, agent)
        reply = await asyncio.wait_for(turn, 5)
    finally:
        await workflow.stop()
        if runner is not None:
            await runner.stop()
    assert reply.message == "hello" and len(asked) == 1


async def test_a_turn_whose_agent_runner_stopped_is_asked_again_under_its_key(
    nats_url: str,
) -> None:
    asked: list[RunAgent] = []

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        if len(asked) == 1:  # what a replica that stops mid-turn answers
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, "RunAgent: the service stopped before answering; try again"
            )
        return AgentReply(message="hello")

    runner = await _agent_runner(nats_url, agent)
    workflow = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(workflow)
    try:
        reply = await NatsAgents(workflow, timeout=10.0).run(_turn())
    finally:
        await workflow.stop()
        await runner.stop()
    assert reply.message == "hello"
    assert [(a.idempotency_key, a.deadline) for a in asked] == [("i-1:m-1", asked[0].deadline)] * 2


async def test_an_agent_runner_that_gave_up_on_the_turn_is_not_asked_again(
    nats_url: str,
) -> None:
    asked: list[RunAgent] = []

    async def agent(turn: RunAgent) -> AgentReply:
        asked.append(turn)
        raise RemoteError.of(ErrorCode.UNAVAILABLE, "agent greeter did not answer in time")

    runner = await _agent_runner(nats_url, agent)
    workflow = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(workflow)
    try:
        with pytest.raises(RemoteError, match="did not answer in time"):
            await NatsAgents(workflow, timeout=10.0).run(_turn())
    finally:
        await workflow.stop()
        await runner.stop()
    assert len(asked) == 1


async def test_with_no_agent_runner_the_turn_fails_by_its_deadline(nats_url: str) -> None:
    workflow = build_broker(MessagingSettings(nats_url=nats_url), "workflow")
    await start_broker(workflow)
    began = time.monotonic()
    try:
        with pytest.raises(RemoteError) as caught:
            await NatsAgents(workflow, timeout=1.5).run(_turn())
    finally:
        await workflow.stop()
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "no responders" in caught.value.body.message
    assert 1.0 <= time.monotonic() - began < 5
