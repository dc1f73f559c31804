"""Every reply that carries an instance's whole `context` (`GET /api/workflows/{id}`, a start, a
signal, an exchange, a chat turn) still fits the 1 MiB a NATS message carries when the
instance is filled to its documented limits, through the gateway on a real NATS.

The limits (`MAX_CONTEXT_PART_BYTES` for the step data and for `shared`) are measured as
compact JSON written by Python's `json`; the replies are written by pydantic. The two write
strings alike (a control character is `\\u0001` in both, a non-ASCII letter its UTF-8 bytes in
both), but not every number: `1e-05` is 5 bytes measured and `0.00001`, 7, replied. A part
filled with such numbers is a third larger in the reply than measured, the worst there is.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.signal_data import MAX_CONTEXT_PART_BYTES, MAX_SIGNAL_DATA_BYTES
from baton_contracts.workflow_api import RecordExchange, WorkflowSignal
from baton_workflow.bootstrap import WorkflowApp, build

from .conftest import FakeAgentRunner, ask, workflow_settings
from .test_http_api import auth, signal

GROWS = 1e-05
"""A number JSON writes longer than Python measures it: `1e-05` against `0.00001`."""
NATS_CARRIES = 1024 * 1024


def measured(value: Any) -> int:
    """Bytes of `value` as the limits measure it."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


class Agents:
    """The step's agent: answers with `message`, no signal."""

    def __init__(self) -> None:
        self.message = "noted"

    async def run(self, request: RunAgent) -> AgentReply:
        return AgentReply(message=self.message)


@pytest.fixture
def agents() -> Agents:
    return Agents()


@pytest.fixture
async def workflow(
    nats_url: str, sqlite_url: str, tmp_path: Path, agent_runner: FakeAgentRunner, agents: Agents
) -> AsyncIterator[WorkflowApp]:
    app = build(workflow_settings(nats_url, sqlite_url), agents=agents)
    await app.start()
    yield app
    await app.stop()


async def start(http: Any, user: str) -> Any:
    return await http.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(http, user)
    )


async def fill(http: Any, user: str, instance: str, part: str) -> None:
    """Grow the step data (`data`) or `shared` to within bytes of its limit, with numbers that
    grow the most once replied, by signals each within their own limit."""
    for n in range(10):
        view = (await http.get(f"/api/workflows/{instance}", headers=auth(http, user))).json()
        held = view["context"]["step_data" if part == "data" else "shared"]
        room = MAX_CONTEXT_PART_BYTES - measured(held) - 16  # the key, quotes, comma
        if room < 64:
            return
        count = min(room, MAX_SIGNAL_DATA_BYTES - 16) // 6  # "1e-05," each
        sent = await signal(
            http, user, instance, action="stay", **{part: {f"k{n}": [GROWS] * count}}
        )
        assert sent.status_code == 200, sent.text[:300]
    raise AssertionError(f"{part} of {instance} did not fill up")


@pytest.fixture
async def full(gateway: Any) -> str:
    """An onboarding whose step data and shared are both at their limits."""
    started = await start(gateway, "fay")
    assert started.status_code == 201, started.text
    instance = str(started.json()["instance_id"])
    await fill(gateway, "fay", instance, "data")
    await fill(gateway, "fay", instance, "shared")
    return instance


def assert_whole(context: dict[str, Any]) -> None:
    """The context as filled: both parts at their limit, measured as the limits measure (the
    step's own record, `messages` once an exchange is counted, comes on top)."""
    for part in ("step_data", "shared"):
        assert MAX_CONTEXT_PART_BYTES - 64 <= measured(context[part]) <= MAX_CONTEXT_PART_BYTES + 64


async def test_the_instance_at_its_limits_is_read_whole(gateway: Any, full: str) -> None:
    one = await gateway.get(f"/api/workflows/{full}", headers=auth(gateway, "fay"))
    assert one.status_code == 200, one.text[:300]
    assert_whole(one.json()["context"])
    # The worst case: a third more replied than measured, still well within 1 MiB.
    assert 2 * MAX_CONTEXT_PART_BYTES * 1.3 < len(one.content) < NATS_CARRIES


async def test_a_start_of_the_full_instance_answers_it_whole(gateway: Any, full: str) -> None:
    again = await start(gateway, "fay")
    assert again.status_code == 200, again.text[:300]
    assert again.json()["instance_id"] == full
    assert_whole(again.json()["context"])


async def test_a_signal_and_an_exchange_on_the_full_instance_answer_it_whole(
    gateway: Any, client: Any, full: str
) -> None:
    sent = await signal(gateway, "fay", full, action="stay", command_id="last-stay")
    assert sent.status_code == 200, sent.text[:300]
    assert sent.json()["outcome"] == "stayed"
    assert_whole(sent.json()["instance"]["context"])
    command = RecordExchange(
        user_id="fay", instance_id=full, command_id="exchange-1", signal=WorkflowSignal()
    )
    turn = await ask(client, command)
    assert_whole(turn.instance.context)


async def test_a_chat_turn_on_the_full_instance_answers_it_whole(gateway: Any, full: str) -> None:
    answer = await gateway.post(
        f"/api/workflows/{full}/messages", json={"text": "hello"}, headers=auth(gateway, "fay")
    )
    assert answer.status_code == 200, answer.text[:300]
    assert answer.json()["reply"]["text"] == "noted"
    assert_whole(answer.json()["turn"]["instance"]["context"])


async def test_a_long_answer_on_the_full_instance_is_answered(
    gateway: Any, agents: Agents, full: str
) -> None:
    """An agent's answer has no limit of its own but the NATS reply that brings it (the
    agent-runner's, 1 MiB); beside the full context it made a chat turn's reply over 1 MiB."""
    agents.message = "A long answer. " * 30_000  # 450 KB: the agent-runner's reply carries it
    assert len(AgentReply(message=agents.message).model_dump_json()) < NATS_CARRIES
    headers = auth(gateway, "fay")
    answer = await gateway.post(
        f"/api/workflows/{full}/messages",
        json={"text": "tell me everything", "client_message_id": "long-1"},
        headers=headers,
    )
    assert answer.status_code == 200, answer.text[:300]
    body = answer.json()
    assert body["reply"]["text"] == agents.message
    assert body["turn"]["outcome"] == "stayed"
    assert body["turn"]["instance"]["context"] is None  # too large beside the answer
    assert body["turn"]["instance"]["current_step"] == "greeting"
    assert body["progress"]["current_step"] == "greeting"
    # The context is one request away, whole, and the turn answers the same when sent again.
    one = await gateway.get(f"/api/workflows/{full}", headers=headers)
    assert_whole(one.json()["context"])
    again = await gateway.post(
        f"/api/workflows/{full}/messages",
        json={"text": "tell me everything", "client_message_id": "long-1"},
        headers=headers,
    )
    assert again.status_code == 200, again.text[:300]
    assert again.json()["replayed"] is True
    assert again.json()["reply"]["text"] == agents.message
    assert again.json()["turn"]["instance"]["context"] is None
