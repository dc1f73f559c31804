"""A chat turn whose agent answered on a step another replica has since closed is kept on the
step it was answered on, and counts toward no later step (found by a review of the turn path:
counted on the next step, one inbox-collector answer forced `setup_complete` and completed
the whole onboarding)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest

from baton_contracts import RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import (
    RecordExchange,
    SendMessage,
    StartWorkflow,
    TurnReply,
    WorkflowSignal,
)
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.service.conversation import send_message
from baton_workflow.service.handlers import start_workflow, take_turn

from .conftest import FakeAgentRunner, workflow_settings

COMPLETE = WorkflowSignal(action="complete_step")


class SlowAgents:
    """Agents that run `meanwhile` (once) before they answer, asking to close their step."""

    def __init__(self) -> None:
        self.meanwhile: Callable[[], Awaitable[None]] | None = None
        self.asked: list[str] = []

    async def run(self, request: RunAgent) -> AgentReply:
        self.asked.append(f"{request.agent}@{request.current_step}")
        if self.meanwhile is not None:
            meanwhile, self.meanwhile = self.meanwhile, None
            await meanwhile()
        return AgentReply.model_validate(
            {"message": "записал", "workflow_signal": {"action": "complete_step"}}
        )


@dataclass
class Replicas:
    """Two replicas on one database: `a` moves the instance on, `b` asks the slow agents."""

    a: WorkflowApp
    b: WorkflowApp
    agents: SlowAgents
    user: str
    instance: str

    async def on_a(self, signal: WorkflowSignal | None = None) -> TurnReply:
        cmd = RecordExchange(
            user_id=self.user, instance_id=self.instance, command_id=uuid.uuid4().hex,
            signal=signal,
        )  # fmt: skip
        return await take_turn(self.a.services, cmd)


@contextlib.asynccontextmanager
async def replicas(
    nats_url: str, database_url: str, agent_runner: FakeAgentRunner, user: str
) -> AsyncIterator[Replicas]:
    """Both started, with an onboarding of `user` (whose facts and items meet every step)."""
    agents = SlowAgents()
    a = build(workflow_settings(nats_url, database_url))
    b = build(workflow_settings(nats_url, database_url), agents=agents)
    await a.start()
    await b.start()
    try:
        agent_runner.facts[user] = agent_runner.items[user] = 3
        started = await start_workflow(
            a.services, StartWorkflow(user_id=user, workflow_id="onboarding")
        )
        yield Replicas(a, b, agents, user, started.instance.instance_id)
    finally:
        await a.stop()
        await b.stop()


async def test_sqlite(nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner) -> None:
    await _late_answer(nats_url, sqlite_url, agent_runner)


@pytest.mark.postgres
async def test_postgres(nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner) -> None:
    await _late_answer(nats_url, postgres_url, agent_runner)


async def _late_answer(nats_url: str, database_url: str, agent_runner: FakeAgentRunner) -> None:
    async with replicas(nats_url, database_url, agent_runner, "late") as r:
        a, b, agents, user, instance, on_a = r.a, r.b, r.agents, r.user, r.instance, r.on_a
        for signal in [None, COMPLETE, None, None, None, None, COMPLETE, None, None]:
            await on_a(signal)  # greeting 2, discovery 5, then 2 exchanges on brain_dump
        await b.services.repo.load(instance)  # replica b has it cached on brain_dump

        async def a_closes_brain_dump() -> None:
            moved = await on_a(COMPLETE)
            assert moved.instance.current_step == "setup_complete"

        agents.meanwhile = a_closes_brain_dump
        said = SendMessage(
            user_id=user, instance_id=instance, client_message_id="m-1", text="и ещё молоко"
        )
        reply = await send_message(b.services, said)

        assert agents.asked == ["inbox_collector@brain_dump"]
        assert (reply.reply.step, reply.reply.agent) == ("brain_dump", "inbox_collector")
        now = reply.turn.instance
        assert (now.status, now.current_step, now.messages_in_step) == (
            "active",
            "setup_complete",
            0,
        )
        assert reply.turn.outcome == "stayed" and reply.turn.warning is None
        last = (await a.services.repo.records(instance))[-1]
        assert last.type == "workflow.exchange_recorded"
        assert (last.payload["step"], last.payload["messages_in_step"]) == ("brain_dump", 4)
        assert last.payload["agent_text"] == "записал"
        # The retry answers from the log; the coordinator still has its step to itself.
        again = await send_message(b.services, said)
        assert again.replayed and again.reply.step == "brain_dump"
        closing = await on_a(COMPLETE)
        assert closing.outcome == "completed" and closing.warning is None


async def test_an_answer_landing_after_another_replica_completed_the_instance_is_kept(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    # Refused with 409 "instance is completed", a turn the coordinator had answered was lost,
    # and its retry refused the same way, though the docs say such a turn is still recorded
    # (found by a review of the conversation rules).
    async with replicas(nats_url, sqlite_url, agent_runner, "late2") as r:
        a, b, agents, user, instance, on_a = r.a, r.b, r.agents, r.user, r.instance, r.on_a
        for signal in [None, COMPLETE, None, None, None, None, COMPLETE, None, None, COMPLETE]:
            await on_a(signal)  # now on setup_complete
        await b.services.repo.load(instance)  # replica b has it cached there

        async def a_completes() -> None:
            assert (await on_a(COMPLETE)).outcome == "completed"

        agents.meanwhile = a_completes
        said = SendMessage(user_id=user, instance_id=instance, client_message_id="m-1", text="ок")
        reply = await send_message(b.services, said)

        assert (reply.reply.step, reply.reply.text) == ("setup_complete", "записал")
        assert reply.turn.instance.status == "completed" and reply.turn.outcome == "stayed"
        last = (await a.services.repo.records(instance))[-1]
        assert (last.type, last.payload["step"]) == ("workflow.exchange_recorded", "setup_complete")
        again = await send_message(b.services, said)
        assert again.replayed and again.reply.text == "записал"
        # A new message to the completed instance is still refused before any agent is asked.
        with pytest.raises(RemoteError, match="is completed"):
            await send_message(b.services, said.model_copy(update={"client_message_id": "m-2"}))
        assert len(agents.asked) == 1
