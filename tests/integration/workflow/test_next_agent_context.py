"""What the agent of the next step is told: the workflow context, with what earlier steps left.

Seed 000 §5 hands each step's agent the workflow context, so a later agent can build on what
an earlier one gathered (the greeter learns a name, the discovery agent greets by it). The
context travels inside `RunAgent.step_context` over NATS, so it is checked as the agent-runner
receives it.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client

from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import MessageReply, SendMessage, StartWorkflow, WorkflowSignal
from baton_messaging import MessagingSettings, build_broker, respond, start_broker
from baton_workflow.bootstrap import WorkflowApp

from .conftest import ask


class ScriptedAgents:
    """The agent-runner's `agent.cmd.run`: notes each turn it is asked, answers from a script
    (then "ok" without a signal once the script is spent)."""

    def __init__(self) -> None:
        self.asked: list[RunAgent] = []
        self.script: list[AgentReply] = []

    async def run(self, turn: RunAgent) -> AgentReply:
        self.asked.append(turn)
        return self.script.pop(0) if self.script else AgentReply(message="ok")


@pytest.fixture
async def agents(nats_url: str) -> AsyncIterator[ScriptedAgents]:
    scripted = ScriptedAgents()
    broker = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner-turns")
    respond(broker, RunAgent, scripted.run, queue="agent")
    await start_broker(broker)
    yield scripted
    await broker.stop()


async def say(nc: Client, user: str, instance: str, text: str) -> MessageReply:
    command = SendMessage(
        user_id=user, instance_id=instance, client_message_id=uuid.uuid4().hex, text=text
    )
    reply = await ask(nc, command)
    assert isinstance(reply, MessageReply)
    return reply


async def test_the_next_steps_agent_gets_the_workflow_context_with_what_the_last_step_saved(
    workflow: WorkflowApp, client: Client, agents: ScriptedAgents
) -> None:
    started = await ask(client, StartWorkflow(user_id="nell", workflow_id="onboarding"))
    instance = str(started.instance.instance_id)
    agents.script = [
        AgentReply(message="Hello! What should I call you?"),
        AgentReply(
            message="Nice to meet you, Ada.",
            workflow_signal=WorkflowSignal(
                action="complete_step", data={"preferred_name": "Ada", "tone": "casual"}
            ),
        ),
    ]
    await say(client, "nell", instance, "hi")
    moved = await say(client, "nell", instance, "call me Ada")
    assert (moved.turn.outcome, moved.turn.instance.current_step) == ("transitioned", "discovery")

    await say(client, "nell", instance, "what now?")

    first_turn_of_discovery = agents.asked[-1]
    assert (first_turn_of_discovery.agent, first_turn_of_discovery.current_step) == (
        "discovery",
        "discovery",
    )
    context = first_turn_of_discovery.step_context["workflow"]
    assert (context["workflow_id"], context["current_step"]) == ("onboarding", "discovery")
    assert context["steps_completed"] == ["greeting"]
    greeting = context["step_data"]["greeting"]
    # The data the greeter's signal merged, beside the record the service keeps of the step.
    assert (greeting["preferred_name"], greeting["tone"]) == ("Ada", "casual")
    assert greeting["messages"] == 2
    assert "completed_at" in greeting
