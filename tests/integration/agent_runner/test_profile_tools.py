"""A profile's `tools` are the agent's: an OpenAI-compatible model that calls them gets the
user's facts and inbox back, read from the stores of the user the turn is for."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client

from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.settings import SHIPPED_PROFILES
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_messaging import request

from .conftest import openai_settings
from .fake_openai import FakeOpenAI


@pytest.fixture
def profiles(tmp_path: Path) -> Path:
    """The shipped profiles, the greeter given both tools."""
    folder = tmp_path / "profiles"
    shutil.copytree(SHIPPED_PROFILES, folder)
    greeter = folder / "greeter.yaml"
    greeter.write_text(
        greeter.read_text().replace("tools: []", "tools: [recall_facts, inbox_summary]")
    )
    return folder


@pytest.fixture
async def with_tools(
    nats_url: str, sqlite_url: str, fake_openai: FakeOpenAI, profiles: Path
) -> AsyncIterator[AgentRunnerApp]:
    settings = openai_settings(
        nats_url, sqlite_url, fake_openai, model_request_timeout_seconds=2.0,
        agent_profiles_dir=profiles,
    )  # fmt: skip
    app = build(settings)
    await app.start()
    yield app
    await app.stop()


def _tool_results(sent: dict[str, Any]) -> dict[str, Any]:
    """What the agent sent back for each tool call, by the call's id."""
    return {
        m["tool_call_id"]: json.loads(m["content"]) for m in sent["messages"] if m["role"] == "tool"
    }


async def test_the_model_calls_the_profiles_tools_and_reads_the_users_data(
    with_tools: AgentRunnerApp, client: Client, fake_openai: FakeOpenAI
) -> None:
    runner = with_tools.runner
    await runner.memory.put_fact("ann", "priorities", "work", "Work: shipping the beta")
    await runner.memory.put_fact("bob", "priorities", "work", "Work: somebody else's")
    await runner.inbox.add("ann", [NewInboxItem("i1", "buy milk", "new")], turn_key="t0")
    fake_openai.mode = "tools"
    turn = RunAgent(user_id="ann", agent="greeter", instance_id="i", current_step="greeting",
                    message="hi", idempotency_key="k-tools")  # fmt: skip
    reply = await request(client, turn, timeout=10.0)
    assert isinstance(reply, AgentReply) and reply.message == "Hello from the model"
    first, second = fake_openai.requests
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert {"recall_facts", "inbox_summary"} <= offered
    results = _tool_results(second)
    facts = [fact["text"] for result in results.values() for fact in result.get("facts", [])]
    assert facts == ["Work: shipping the beta"]  # ann's, never bob's
    [inbox] = [result for result in results.values() if "count" in result]
    assert inbox == {"count": 1, "newest": ["buy milk"]}


async def test_a_profile_without_tools_offers_the_model_none(
    with_tools: AgentRunnerApp, client: Client, fake_openai: FakeOpenAI
) -> None:
    turn = RunAgent(user_id="ann", agent="discovery", instance_id="i", current_step="discovery",
                    message="hi", idempotency_key="k-none")  # fmt: skip
    assert isinstance(await request(client, turn, timeout=10.0), AgentReply)
    names = [tool["function"]["name"] for tool in fake_openai.requests[0]["tools"]]
    assert all(name.startswith("final_result") for name in names)
