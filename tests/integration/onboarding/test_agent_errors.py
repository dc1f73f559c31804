"""An agent-runner that answers a turn with an error leaves the instance as it was."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import WorkflowSignal

from .conftest import Stack, User
from .test_faults import agent_in_place


@pytest.fixture
async def failing_once(stack: Stack) -> AsyncIterator[list[RunAgent]]:
    """An agent whose first turn fails inside the agent-runner (INTERNAL: a model that crashed,
    a bug), and whose later turns answer."""
    seen: list[RunAgent] = []

    async def answer(cmd: RunAgent) -> AgentReply:
        seen.append(cmd)
        if len(seen) == 1:
            raise RemoteError.of(ErrorCode.INTERNAL, "the model crashed")
        return AgentReply(message="Welcome!", workflow_signal=WorkflowSignal(action="stay"))

    async with agent_in_place(stack, answer):
        yield seen


async def test_an_agent_that_fails_inside_answers_503_records_nothing_and_the_retry_works(
    stack: Stack, http: httpx.AsyncClient, failing_once: list[RunAgent]
) -> None:
    # A 500 would tell the user the platform is broken and not to retry; the turn did nothing,
    # so it is a 503 that says to send the message again, and sending it again must work.
    user = User(http, "internal")
    await user.start()

    failed = await user.send("hello", client_message_id="m-1")

    assert failed.status_code == 503, failed.text
    error = failed.json()["error"]
    assert error["code"] == ErrorCode.UNAVAILABLE.value
    assert "greeter" in error["message"] and "greeting" in error["message"]
    assert "the model crashed" in error["message"]
    view = await user.get(f"/api/workflows/{user.instance}")
    assert (view["current_step"], view["messages_in_step"]) == ("greeting", 0)
    assert (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"] == []

    again = await user.send("hello", client_message_id="m-1")

    assert again.status_code == 200, again.text
    assert (again.json()["reply"]["text"], again.json()["replayed"]) == ("Welcome!", False)
    assert len(failing_once) == 2  # the retry asked the agent again: nothing was kept
    messages = (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "hello"),
        ("assistant", "Welcome!"),
    ]
    view = await user.get(f"/api/workflows/{user.instance}")
    assert (view["current_step"], view["messages_in_step"]) == ("greeting", 1)
