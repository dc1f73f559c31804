"""What a client is told about a turn is true when the turn runs into its time limits.

Scaled down from the defaults (agent call 35 s, gateway 40 s, a statement 2 s) with the same
order: the gateway waits longer than the workflow's agent call and a statement together. A 503
means nothing was recorded; a turn recorded in time is answered.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import nats
import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import SendMessage
from baton_messaging.requests import request

from ...platform_stack import User, gateway_client, running_stack
from .conftest import agent_answering

SCRIPT_TO_BRAIN_DUMP = (
    "Hi!", "Got it, let's go", "Add to my inbox: buy milk",
    "Work and health matter most, and my hobbies", "yes", "yes, that's right", "yes",
)  # fmt: skip


@asynccontextmanager
async def slow_agent(nats_url: str, seconds: dict[str, float]) -> AsyncIterator[list[str]]:
    """An `agent.cmd.run` responder taking `seconds[message]` per turn; yields what it was asked."""
    asked: list[str] = []

    async def answer(turn: RunAgent) -> AgentReply:
        asked.append(turn.message)
        await asyncio.sleep(seconds[turn.message])
        return AgentReply(message=f"answer to {turn.message}")

    async with agent_answering(nats_url, answer):
        yield asked


async def test_a_turn_queued_behind_another_ends_by_its_own_deadline_recording_nothing(
    nats_url: str, tmp_path: Path
) -> None:
    # Two messages to one instance at once (a double click, two tabs): the second waits for
    # the first. Its 2 s counted only once it had the instance, so it asked its agent after
    # its caller had given up on it, and was recorded after the gateway had answered 503.
    # It now waits for the instance until its own deadline, counted from its arrival.
    async with (
        running_stack(
            nats_url,
            tmp_path,
            agent_runner=False,
            agent_call_timeout_seconds=2.0,
            database_statement_timeout_seconds=0.5,
            gateway={"chat_timeout_seconds": 3.5, "request_timeout_seconds": 1.0},
        ) as stack,
        gateway_client(stack) as http,
        slow_agent(nats_url, {"first": 2.2, "second": 0.1}) as asked,
    ):
        user = User(http, "queued")
        await user.start()
        first = asyncio.create_task(user.send("first", "m1"))
        await asyncio.sleep(0.05)
        second = await user.send("second", "m2")
        assert (await first).status_code == 200
        log = await user.get(f"/api/workflows/{user.instance}/messages")

    assert second.status_code == 503, second.text
    assert second.json()["error"]["message"] == (
        "another message to this instance was still being answered; nothing was recorded: "
        "send the message again with the same client_message_id"
    )
    assert [m["text"] for m in log["messages"]] == ["first", "answer to first"]
    assert asked == ["first"]  # its agent was never asked


async def test_a_turn_sent_again_late_ends_by_its_callers_deadline_recording_nothing(
    nats_url: str, tmp_path: Path
) -> None:
    # The gateway sends a turn again while its first send is unanswered (its workflow process
    # may have been killed), with the deadline of the first send. Timed from its own arrival,
    # a send that came late asked its agent and was recorded after the gateway had stopped
    # waiting and answered 503 ("nothing was recorded"). It now ends by the caller's deadline:
    # here 2 s away, with a statement's 0.5 s and the answer's way back kept before it.
    async with (
        running_stack(
            nats_url,
            tmp_path,
            agent_runner=False,
            agent_call_timeout_seconds=5.0,
            database_statement_timeout_seconds=0.5,
        ) as stack,
        gateway_client(stack) as http,
        slow_agent(nats_url, {"sent again": 2.0}) as asked,
    ):
        user = User(http, "resent")
        await user.start()
        deadline = datetime.now(UTC) + timedelta(seconds=2.0)
        turn = SendMessage(
            user_id="resent",
            instance_id=user.instance,
            client_message_id="m1",
            text="sent again",
            deadline=deadline,
        )
        nc = await nats.connect(nats_url)
        try:
            with pytest.raises(RemoteError) as refused:
                await request(nc, turn, timeout=5.0)
        finally:
            await nc.close()
        answered = datetime.now(UTC)
        log = await user.get(f"/api/workflows/{user.instance}/messages")

    assert refused.value.body.code == ErrorCode.UNAVAILABLE, refused.value.body
    assert answered < deadline  # while its caller still waited
    assert asked == ["sent again"]
    assert log["messages"] == []


async def test_a_reply_recorded_while_the_turn_marks_items_told_is_answered(
    nats_url: str, tmp_path: Path
) -> None:
    # The agent-runner recorded the reply, then spent 3.5 s marking the deferred item told
    # (its store slow, under its own 4 s limit): the workflow had given up at the turn's
    # 3 s deadline and said "nothing was recorded", while the items were kept and the reply
    # logged. Marking told is now bounded by the deadline, and the reply is waited for a
    # moment past it.
    async with (
        running_stack(
            nats_url,
            tmp_path,
            agent_call_timeout_seconds=3.0,
            gateway={"chat_timeout_seconds": 6.0, "request_timeout_seconds": 2.0},
        ) as stack,
        gateway_client(stack) as http,
    ):
        user = User(http, "late")
        await user.start()
        for text in SCRIPT_TO_BRAIN_DUMP:
            await user.say(text)
        assert await user.step() == "brain_dump"
        assert stack.agent_runner is not None
        inbox = stack.agent_runner.runner.inbox
        mark = inbox.mark_announced

        async def slow_mark(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(3.5)
            return await mark(*args, **kwargs)

        inbox.mark_announced = slow_mark  # type: ignore[method-assign]
        response = await user.send("call the bank; book a dentist", "m8")
        inbox.mark_announced = mark  # type: ignore[method-assign]
        items = [i["content"] for i in (await user.get("/api/inbox"))["items"]]
        log = await user.get(f"/api/workflows/{user.instance}/messages")

    assert response.status_code == 200, response.text
    assert any(m["client_message_id"] == "m8" for m in log["messages"])
    assert {"call the bank", "book a dentist"} <= set(items)
