"""A step whose agent the agent-runner does not know: a server fault, never the client's 404.

A definition may name any well-formed slug; whether a profile exists is the agent-runner's to
say, at the first turn. Its `not_found` (field `agent`) was passed on as it came, so the chat
route answered 404 on an instance that exists, and a client took its onboarding for gone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from baton_contracts import ErrorBody, ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_messaging import MessagingSettings, build_broker, respond, start_broker


class ProfileLess:
    """The agent-runner as it answers a slug it has no profile for (`turns._profile`)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def run(self, request: RunAgent) -> AgentReply:
        self.asked.append(request.agent)
        message = f"unknown agent {request.agent!r} (known: coordinator)"
        detail = ErrorDetail(field="agent", message=message)
        raise RemoteError(ErrorBody(code=ErrorCode.NOT_FOUND, message=message, details=[detail]))


@pytest.fixture
async def profile_less(nats_url: str) -> AsyncIterator[ProfileLess]:
    fake = ProfileLess()
    broker = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-runner-turns")
    respond(broker, RunAgent, fake.run, queue="agent")
    await start_broker(broker)
    yield fake
    await broker.stop()


async def test_a_step_whose_agent_has_no_profile_is_a_server_fault(
    gateway: Any, profile_less: ProfileLess, caplog: pytest.LogCaptureFixture
) -> None:
    headers = gateway.token("una")
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=headers
    )
    instance = started.json()["instance_id"]

    with caplog.at_level("ERROR", logger="baton.workflow"):
        said = await gateway.post(
            f"/api/workflows/{instance}/messages", json={"text": "hello"}, headers=headers
        )

    assert profile_less.asked == ["greeter"]
    assert said.status_code == 500, said.text
    error = said.json()["error"]
    assert error["code"] == "internal"
    assert error["message"].startswith(
        "step 'greeting' of workflow 'onboarding' is served by the agent 'greeter', which the "
        "agent-runner does not know (unknown agent 'greeter' (known: coordinator)); nothing "
        "was recorded and the instance is still on 'greeting'"
    )
    assert "workflow onboarding step greeting names agent greeter" in caplog.text
    # The instance is there, untouched: only its start is in the log.
    still = await gateway.get(f"/api/workflows/{instance}/events", headers=headers)
    assert still.status_code == 200
    assert [e["type"] for e in still.json()["events"]] == ["workflow.instance_started"]
