"""A step with `is_required: false`: a signal naming a later step may skip it, and the agent's
signal alone closes it. Progress, `/explain` and the agent's pre-check say so."""

from __future__ import annotations

import json
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baton_contracts.agent_api import AgentReply, RunAgent
from baton_workflow.bootstrap import WorkflowApp, build

from .conftest import FakeAgentRunner, workflow_settings

INTAKE = """
id: intake
steps:
  - id: hello
    agent_slug: greeter
    completion_criteria: [{checker: agent_signal}]
    next_step: survey
  - id: survey
    agent_slug: discovery
    is_required: false
    min_messages: 2
    completion_criteria:
      - checker: agent_signal
      - checker: memory_facts
        params: {min_facts: 2, category: priorities}
    next_step: notes
  - id: notes
    agent_slug: inbox_collector
    next_step: wrap
  - id: wrap
    agent_slug: coordinator
"""


class Agents:
    """The step's agent: notes what it was asked, answers without a signal."""

    def __init__(self) -> None:
        self.asked: list[RunAgent] = []

    async def run(self, request: RunAgent) -> AgentReply:
        self.asked.append(request)
        return AgentReply(message="noted")


@pytest.fixture
def agents() -> Agents:
    return Agents()


@pytest.fixture
async def workflow(
    nats_url: str, sqlite_url: str, tmp_path: Path, agent_runner: FakeAgentRunner, agents: Agents
) -> AsyncIterator[WorkflowApp]:
    folder = tmp_path / "defs"
    folder.mkdir()
    (folder / "intake.yaml").write_text(textwrap.dedent(INTAKE))
    app = build(
        workflow_settings(nats_url, sqlite_url, workflow_definitions_dir=folder), agents=agents
    )
    await app.start()
    yield app
    await app.stop()


class User:
    def __init__(self, http: Any, name: str) -> None:
        self.http, self.headers, self.instance = http, http.token(name), ""

    async def start(self) -> None:
        started = await self.http.post(
            "/api/workflows", json={"workflow_id": "intake"}, headers=self.headers
        )
        assert started.status_code == 201, started.text
        self.instance = started.json()["instance_id"]

    async def signal(self, **body: Any) -> Any:
        url = f"/api/workflows/{self.instance}/signal"
        answer = await self.http.post(url, json=body, headers=self.headers)
        assert answer.status_code == 200, answer.text
        return answer.json()

    async def get(self, what: str) -> Any:
        answer = await self.http.get(f"/api/workflows/{self.instance}{what}", headers=self.headers)
        assert answer.status_code == 200, answer.text
        return answer.json()


async def test_a_skipped_step_shows_as_skipped_and_counts_as_passed(gateway: Any) -> None:
    user = User(gateway, "sky")
    await user.start()
    skip = await user.signal(action="complete_step", target_step="notes")
    assert (skip["outcome"], skip["instance"]["current_step"]) == ("transitioned", "notes")

    progress = await user.get("/progress")
    assert [(s["id"], s["status"]) for s in progress["steps"]] == [
        ("hello", "completed"),
        ("survey", "skipped"),
        ("notes", "active"),
        ("wrap", "pending"),
    ]
    # Two of the three steps before the final one are behind the instance (seed 000 §7).
    assert progress["completion_percentage"] == 66.67
    assert (await user.get(""))["progress"] == pytest.approx(2 / 3, abs=1e-4)

    await user.signal(action="complete_step")
    done = await user.signal(action="complete_step")
    assert done["outcome"] == "completed"
    progress = await user.get("/progress")
    assert [s["status"] for s in progress["steps"]] == [
        "completed",
        "skipped",
        "completed",
        "completed",
    ]
    assert progress["completion_percentage"] == 100.0


async def test_explain_says_an_optional_step_closes_on_the_signal_alone(gateway: Any) -> None:
    user = User(gateway, "opt")
    await user.start()
    await user.signal(action="complete_step")  # hello -> survey
    why = await user.get("/explain")
    assert why["current_step"] == "survey"
    assert [(c["checker"], c["met"]) for c in why["criteria"]] == [
        ("agent_signal", False),
        ("memory_facts", False),
    ]
    # Unmet criteria and min_messages do not hold an optional step: a signal would close it.
    assert (why["messages_in_step"], why["min_messages"], why["can_complete"]) == (0, 2, True)
    moved = await user.signal(action="complete_step")
    assert (moved["outcome"], moved["instance"]["current_step"]) == ("transitioned", "notes")


async def test_the_agent_of_an_optional_step_is_told_it_can_complete(
    gateway: Any, agents: Agents
) -> None:
    user = User(gateway, "pre")
    await user.start()
    await user.signal(action="complete_step")  # hello -> survey
    answer = await gateway.post(
        f"/api/workflows/{user.instance}/messages", json={"text": "hi"}, headers=user.headers
    )
    assert answer.status_code == 200, answer.text
    [asked] = agents.asked
    assert (asked.current_step, asked.can_complete) == ("survey", True)


async def test_the_agent_is_told_whether_its_step_is_required(gateway: Any, agents: Agents) -> None:
    # Not told, the discovery agent said "This step cannot be skipped" of an optional step.
    user = User(gateway, "req")
    await user.start()
    said = {"json": {"text": "hi"}, "headers": user.headers}
    assert (await gateway.post(f"/api/workflows/{user.instance}/messages", **said)).is_success
    await user.signal(action="complete_step")  # hello -> survey
    assert (await gateway.post(f"/api/workflows/{user.instance}/messages", **said)).is_success
    hello, survey = agents.asked
    assert (hello.current_step, hello.step_required) == ("hello", True)
    assert (survey.current_step, survey.step_required) == ("survey", False)
    # Sent only when false: an agent-runner older than the field reads a required step's turn.
    assert "step_required" not in json.loads(hello.to_bytes())
    assert json.loads(survey.to_bytes())["step_required"] is False
