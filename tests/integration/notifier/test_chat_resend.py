"""A chat turn the workflow service never answers is sent again (`BATON_CHAT_RESEND_SECONDS`).

A workflow service killed with SIGKILL mid-turn tells no one: the gateway waited out its whole
chat timeout (40 s) and answered 503, while the restarted service sat idle. The turn is now
sent again, the same `client_message_id` in it, and the restarted process (or another replica)
answers it; the workflow service answers a repeated id once (tests/integration/onboarding)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

import httpx
import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from baton_contracts import ReplyOk
from baton_contracts.workflow_api import SendMessage
from baton_notifier.bootstrap import Notifier
from baton_notifier.settings import NotifierSettings

from .conftest import started

SUBJECT = SendMessage(user_id="u", instance_id="i", client_message_id="c", text="t").wire_subject()


class Workflow:
    """Takes every turn sent to it; answers from the `answer_from`-th send on (0: the first)."""

    def __init__(self, answer_from: int) -> None:
        self.answer_from = answer_from
        self.turns: list[dict[str, object]] = []

    async def on_turn(self, msg: Msg) -> None:
        turn = json.loads(msg.data)
        self.turns.append(turn)
        if len(self.turns) > self.answer_from:  # the earlier ones: held by a killed process
            answer = {"reply": {"text": f"answered {turn['client_message_id']}"}}
            await msg.respond(ReplyOk(result=answer).model_dump_json().encode())


@pytest.fixture
async def notifier(
    nats_url: str, make_settings: Callable[..., NotifierSettings]
) -> AsyncIterator[Notifier]:
    settings = make_settings(nats_url, chat_timeout_seconds=20.0, chat_resend_seconds=0.3)
    async with started(settings) as built:
        yield built


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await nats.connect(nats_url)
    yield client
    await client.close()


async def say(notifier: Notifier, auth: dict[str, str]) -> httpx.Response:
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        return await http.post(
            "/api/workflows/i1/messages",
            json={"text": "hello", "client_message_id": "m-1"},
            headers=auth,
            timeout=30,
        )


async def test_a_turn_its_workflow_process_never_answers_is_answered_by_the_resend(
    notifier: Notifier, nc: Client, auth: dict[str, str]
) -> None:
    workflow = Workflow(answer_from=1)
    sub = await nc.subscribe(SUBJECT, cb=workflow.on_turn)
    await nc.flush()
    sent = datetime.now(UTC)
    response = await say(notifier, auth)
    await sub.unsubscribe()
    assert response.status_code == 200, response.text
    assert response.json() == {"reply": {"text": "answered m-1"}}
    assert len(workflow.turns) == 2
    assert [t["client_message_id"] for t in workflow.turns] == ["m-1", "m-1"]
    assert workflow.turns[0] == workflow.turns[1]  # the same turn, deadline and all
    # The deadline is when the gateway stops waiting (its chat timeout from the first send),
    # so a send again that arrives late has only what is left of the caller's time.
    deadline = datetime.fromisoformat(str(workflow.turns[0]["deadline"]))
    assert timedelta(seconds=19) < deadline - sent < timedelta(seconds=21)


async def test_a_turn_sent_while_the_workflow_service_restarts_waits_for_it(
    notifier: Notifier, nc: Client, auth: dict[str, str]
) -> None:
    # No workflow replica at all for a second (a restart): "no responders" was a 503 at once.
    workflow = Workflow(answer_from=0)
    sending = asyncio.create_task(say(notifier, auth))
    await asyncio.sleep(1.0)
    assert not sending.done()
    sub = await nc.subscribe(SUBJECT, cb=workflow.on_turn)
    await nc.flush()
    response = await sending
    await sub.unsubscribe()
    assert response.status_code == 200, response.text
    assert [t["client_message_id"] for t in workflow.turns] == ["m-1"]


async def test_a_turn_answered_in_time_is_sent_once(
    notifier: Notifier, nc: Client, auth: dict[str, str]
) -> None:
    workflow = Workflow(answer_from=0)
    sub = await nc.subscribe(SUBJECT, cb=workflow.on_turn)
    await nc.flush()
    response = await say(notifier, auth)
    await asyncio.sleep(0.6)  # past two resend waits: nothing more is sent
    await sub.unsubscribe()
    assert response.status_code == 200
    assert len(workflow.turns) == 1
