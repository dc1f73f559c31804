"""Agent faults at the gateway: an agent-runner that is gone, restarted, or too slow."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import WorkflowSignal

from .conftest import Stack, User, agent_answering


# Not this module's 0.5 s: the first turn a freshly started agent-runner answers builds its
# agents and opens its stores, which took more than 0.5 s on a busy 2-core CI machine (the
# turn came back "deadline has passed"). A gone agent-runner is still a 503 within this.
@pytest.mark.parametrize("workflow_extra", [{"agent_call_timeout_seconds": 3.0}])
async def test_agent_runner_restarted_mid_conversation(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "restart")
    await user.start()
    await user.say("Hello")
    await stack.stop_agent_runner()

    down = await user.send("Got it, let's go")
    assert down.status_code == 503, down.text
    assert "greeter" in down.json()["error"]["message"]
    assert "greeting" in down.json()["error"]["message"]  # says the step did not move
    view = await user.get(f"/api/workflows/{user.instance}")
    assert (view["current_step"], view["messages_in_step"]) == ("greeting", 1)
    assert len((await user.get(f"/api/workflows/{user.instance}/messages"))["messages"]) == 2
    assert (await http.get("/api/inbox", headers=user.headers)).status_code == 503

    await stack.start_agent_runner()
    again = await user.say("Got it, let's go")
    assert again["progress"]["current_step"] == "discovery"
    for text in ("work, health, family", "that is all", "yes"):
        await user.say(text)
    assert len((await user.get("/api/memory", category="priorities"))["facts"]) == 3


@pytest.fixture
def workflow_extra() -> dict[str, Any]:
    return {"agent_call_timeout_seconds": 0.5}


@asynccontextmanager
async def agent_in_place(
    stack: Stack, answer: Callable[[RunAgent], Awaitable[AgentReply]]
) -> AsyncIterator[None]:
    """`answer` serves `agent.cmd.run` instead of the agent-runner while the block runs, and
    the checkers' counts are answered as the agent-runner would for a user with no facts and
    no inbox items (a checker that gets no answer refuses the turn instead of deciding it)."""
    await stack.stop_agent_runner()
    async with agent_answering(stack.nats_url, answer, counts=0):
        yield


@pytest.fixture
async def slow_agent(stack: Stack) -> AsyncIterator[list[RunAgent]]:
    """Replaces the agent-runner's `agent.cmd.run` with one that answers after 2 s."""
    seen: list[RunAgent] = []

    async def slow(cmd: RunAgent) -> AgentReply:
        seen.append(cmd)
        await asyncio.sleep(2.0)
        return AgentReply(message="too late")

    async with agent_in_place(stack, slow):
        yield seen


async def test_a_timed_out_agent_leaves_the_step_and_returns_503(
    stack: Stack, http: httpx.AsyncClient, slow_agent: list[RunAgent]
) -> None:
    user = User(http, "slow")
    await user.start()
    response = await user.send("ready")
    assert response.status_code == 503, response.text
    said = response.json()["error"]["message"]
    assert said.startswith("the greeter agent could not answer (no reply on 'agent.cmd.run'")
    assert said.endswith("send the message again with the same client_message_id")
    assert len(slow_agent) == 1
    view = await user.get(f"/api/workflows/{user.instance}")
    assert (view["current_step"], view["messages_in_step"]) == ("greeting", 0)
    assert (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"] == []
    # What the agent was asked: the step, its context and seed 000's pre-check.
    asked = slow_agent[0]
    assert (asked.agent, asked.current_step, asked.can_complete) == ("greeter", "greeting", False)
    assert asked.step_context["min_messages"] == 2
    assert asked.step_context["criteria"] == ["agent_signal"]  # what closes the step
    assert asked.idempotency_key.endswith(response.request.read().decode().split('"')[-2])


def short_discovery(folder: Path) -> Path:
    """The shipped onboarding with discovery capped at 6 messages."""
    from baton_workflow.settings import SHIPPED_DEFINITIONS

    data = yaml.safe_load((SHIPPED_DEFINITIONS / "onboarding.yaml").read_text())
    for step in data["steps"]:
        if step["id"] == "discovery":
            step["max_messages"] = 6
    target = folder / "definitions"
    target.mkdir()
    (target / "onboarding.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    return target


class TestForcedTransition:
    @pytest.fixture
    def workflow_extra(self, tmp_path: Path) -> dict[str, Any]:
        return {"workflow_definitions_dir": short_discovery(tmp_path)}

    async def test_max_messages_moves_on_with_a_warning(
        self, stack: Stack, http: httpx.AsyncClient
    ) -> None:
        user = User(http, "chatty")
        await user.start()
        await user.say("hi")
        await user.say("ready")
        replies = [await user.say(f"just chatting, message {n}") for n in range(1, 7)]
        assert [r["turn"]["instance"]["current_step"] for r in replies[:-1]] == ["discovery"] * 5
        forced = replies[-1]["turn"]
        assert forced["outcome"] == "forced"
        assert forced["instance"]["current_step"] == "brain_dump"
        assert "max_messages (6)" in forced["warning"]
        assert any("memory_facts" in m for m in forced["missing_criteria"])


@pytest.fixture
async def eager_agent(stack: Stack) -> AsyncIterator[list[RunAgent]]:
    """Replaces the agent-runner with an agent that asks to complete the step on every turn."""
    seen: list[RunAgent] = []

    async def eager(cmd: RunAgent) -> AgentReply:
        seen.append(cmd)
        return AgentReply(
            message="done here", workflow_signal=WorkflowSignal(action="complete_step")
        )

    async with agent_in_place(stack, eager):
        yield seen


async def test_a_blocked_completion_is_told_to_the_agent_on_the_next_turn(
    stack: Stack, http: httpx.AsyncClient, eager_agent: list[RunAgent]
) -> None:
    user = User(http, "eager")
    await user.start()
    first = await user.say("hello")
    assert (first["turn"]["outcome"], first["progress"]["current_step"]) == ("blocked", "greeting")
    await user.say("hello again")
    before, after = (asked.step_context for asked in eager_agent)
    assert "last_block" not in before
    assert after["last_block"] == {
        "reason": first["turn"]["reason"],
        "missing_criteria": ["min_messages: 1/2 messages"],
    }
    assert await user.step() == "discovery"  # the second completion went through
    await user.say("hi")
    assert "last_block" not in eager_agent[2].step_context  # only the turn right after a block


@pytest.fixture
async def wordy_agent(stack: Stack) -> AsyncIterator[list[RunAgent]]:
    """An agent whose first answer is longer than a history entry may be (a model's essay)."""
    seen: list[RunAgent] = []

    async def wordy(cmd: RunAgent) -> AgentReply:
        seen.append(cmd)
        return AgentReply(message="essay " * 8_000 if len(seen) == 1 else "short")

    async with agent_in_place(stack, wordy):
        yield seen


async def test_a_very_long_agent_answer_does_not_wedge_the_next_turns(
    stack: Stack, http: httpx.AsyncClient, wordy_agent: list[RunAgent]
) -> None:
    user = User(http, "wordy")
    await user.start()
    assert len((await user.say("hello"))["reply"]["text"]) == 48_000
    nxt = await user.send("and then?")
    assert nxt.status_code == 200, nxt.text
    history = wordy_agent[1].history
    assert [h.role for h in history] == ["user", "assistant"]
    assert history[1].text.startswith("essay essay")
