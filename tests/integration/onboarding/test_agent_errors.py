"""An agent-runner that answers a turn with an error leaves the instance as it was."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.service.ports import (
    ModelAnswer,
    ModelUnavailable,
    StoreUnavailable,
    ToolContext,
)
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


RETRY = "nothing was recorded and the instance is still on 'greeting': send the message again "
RETRY += "with the same client_message_id"


@pytest.fixture
def models(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> list[BaseException | None]:
    """The real agent-runner, its model failing with each exception put here, in turn (None:
    the model answers as it would)."""
    assert stack.agent_runner is not None
    runner = stack.agent_runner.runner
    answer, failures = runner.agents.answer, list[BaseException | None]()

    async def failing(profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        failure = failures.pop(0) if failures else None
        if isinstance(failure, TimeoutError):
            await asyncio.sleep(5.0)  # past the runner's timeout, set by the test
        elif failure is not None:
            raise failure
        return await answer(profile, turn, tools)

    monkeypatch.setattr(runner.agents, "answer", failing)
    return failures


async def _failed_then_answered(user: User, expected: str) -> None:
    """The turn is refused with `expected` (and a `Retry-After`), as the user sees it, and
    the same message sent again is answered: nothing of the first was kept."""
    failed = await user.send("hello", client_message_id="m-1")

    assert failed.status_code == 503, failed.text
    assert failed.headers["Retry-After"] == "2"
    assert failed.json()["error"]["message"] == expected
    assert (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"] == []
    again = await user.send("hello", client_message_id="m-1")
    assert again.status_code == 200, again.text
    assert again.json()["replayed"] is False


async def test_a_model_that_is_down_is_named_with_its_short_reason(
    stack: Stack, http: httpx.AsyncClient, models: list[BaseException | None]
) -> None:
    # The adapter's reason, not its repr: an HTTP error's body may echo the prompt.
    body = "ModelHTTPError(status_code: 503, body: {'prompt': 'my secret'})"
    models.append(ModelUnavailable(body, "HTTP 503 from gpt-x"))
    user = User(http, "model-down")
    await user.start()

    await _failed_then_answered(
        user,
        "the greeter agent could not answer (its model is unavailable: HTTP 503 from gpt-x); "
        + RETRY,
    )


async def test_a_model_that_does_not_answer_in_time_is_told_with_its_limit(
    stack: Stack, http: httpx.AsyncClient, models: list[BaseException | None]
) -> None:
    assert stack.agent_runner is not None
    stack.agent_runner.runner.timeout = 0.5
    models.append(TimeoutError())
    user = User(http, "model-slow")
    await user.start()

    await _failed_then_answered(
        user, "the greeter agent could not answer (its model did not answer within 0.5s); " + RETRY
    )


async def test_a_store_that_is_down_is_named(
    stack: Stack, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert stack.agent_runner is not None
    replies = stack.agent_runner.runner.replies
    claim, calls = replies.claim, list[int]()

    async def down_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:  # what the driver said stays in the log
            raise StoreUnavailable("replies: OperationalError: SELECT ... 'm-1'", "replies")
        return await claim(*args, **kwargs)

    monkeypatch.setattr(replies, "claim", down_once)
    user = User(http, "replies-down")
    await user.start()

    await _failed_then_answered(
        user,
        "the greeter agent could not answer (the agent-runner's own database is unavailable); "
        + RETRY,
    )


@pytest.fixture
async def unreadable_reply(stack: Stack) -> AsyncIterator[list[RunAgent]]:
    """An agent-runner whose reply this workflow service cannot decode (a version whose
    `AgentReply` differs): it has answered, so it has recorded that reply under the key."""
    seen: list[RunAgent] = []

    async def answer(cmd: RunAgent) -> AgentReply:
        seen.append(cmd)
        return AgentReply.model_construct(message=["not", "text"], workflow_signal=None)

    async with agent_in_place(stack, answer):
        yield seen


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the reply, on purpose
async def test_a_reply_the_workflow_cannot_read_is_not_said_to_have_recorded_nothing(
    stack: Stack, http: httpx.AsyncClient, unreadable_reply: list[RunAgent]
) -> None:
    # Found by a review: the 503 said "nothing was recorded" while the agent-runner, having
    # answered, had recorded its reply; a retry is answered from that record.
    user = User(http, "unreadable")
    await user.start()

    failed = await user.send("hello", client_message_id="m-1")

    assert failed.status_code == 503, failed.text
    said = failed.json()["error"]["message"]
    assert "nothing was recorded" not in said
    assert said.startswith(
        "the greeter agent answered, but this workflow service could not read its reply "
        "(reply on 'agent.cmd.run' does not match AgentReply: message: "
    ), said
    assert "the agent-runner has recorded that reply" in said
    assert "is answered from that record (the agent is not asked again)" in said
    view = await user.get(f"/api/workflows/{user.instance}")
    assert (view["current_step"], view["messages_in_step"]) == ("greeting", 0)
    assert len(unreadable_reply) == 1


async def test_the_retry_after_an_unreadable_reply_is_answered_from_the_record(
    stack: Stack, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real agent-runner records its reply; this workflow service is made to fail reading
    # it once (as a version whose AgentReply differs would). Once it reads it, the retry under
    # the same client_message_id gets that recorded reply: the model is not asked twice.
    from baton_agent_runner.adapters.models import AgentFactory
    from baton_messaging.requests import ReplyUnreadable
    from baton_workflow.adapters import agent_runner as adapter

    model_calls: list[str] = []
    answer = AgentFactory.answer

    async def counted(self: AgentFactory, profile: Profile, turn: Turn, tools: ToolContext) -> Any:
        model_calls.append(profile.slug)
        return await answer(self, profile, turn, tools)

    monkeypatch.setattr(AgentFactory, "answer", counted)
    sent = adapter.request_again_while_gone

    async def unreadable(*args: Any, **kwargs: Any) -> Any:
        await sent(*args, **kwargs)
        raise ReplyUnreadable.of(ErrorCode.INTERNAL, "reply on 'agent.cmd.run' does not match")

    monkeypatch.setattr(adapter, "request_again_while_gone", unreadable)
    user = User(http, "unreadable-retry")
    await user.start()

    failed = await user.send("hello", client_message_id="m-1")

    assert failed.status_code == 503, failed.text
    assert "the agent-runner has recorded that reply" in failed.json()["error"]["message"]
    assert model_calls == ["greeter"]
    monkeypatch.setattr(adapter, "request_again_while_gone", sent)  # the versions match again

    again = await user.send("hello", client_message_id="m-1")

    assert again.status_code == 200, again.text
    assert model_calls == ["greeter"]  # answered from the agent-runner's record
    messages = (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
