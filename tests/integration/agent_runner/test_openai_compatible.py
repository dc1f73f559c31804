"""The `openai:<model>` path against a fake OpenAI server on 127.0.0.1 (a real HTTP server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client

from baton_agent_runner.bootstrap import build
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, InboxItems, ListInboxItems, RunAgent
from baton_messaging import request

from .conftest import openai_settings
from .fake_openai import FakeOpenAI


@pytest.fixture
async def openai_runner(nats_url: str, sqlite_url: str, fake_openai: FakeOpenAI) -> Any:
    timeout = {"model_request_timeout_seconds": 0.3}
    app = build(openai_settings(nats_url, sqlite_url, fake_openai, **timeout))
    await app.start()
    yield app
    await app.stop()


def _turn(key: str, message: str = "ready") -> RunAgent:
    return RunAgent(
        user_id="u",
        agent="greeter",
        instance_id="i",
        current_step="greeting",
        message=message,
        idempotency_key=key,
    )


async def test_valid_structured_reply(
    openai_runner: Any, client: Client, fake_openai: FakeOpenAI
) -> None:
    reply = await request(client, _turn("k1", "Готов"), timeout=10.0)
    assert isinstance(reply, AgentReply)
    assert reply.message == "Hello from the model" and reply.step_completed
    assert reply.workflow_signal.action == "complete_step" and reply.model == "openai:fake-model"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (100, 20)
    sent = fake_openai.requests[0]
    assert sent["model"] == "fake-model" and sent["temperature"] == 0.3
    assert 600 in (sent.get("max_tokens"), sent.get("max_completion_tokens"))
    assert "Ты — приветствующий агент" in json.dumps(sent, ensure_ascii=False)


async def test_the_model_is_told_the_step_context(
    openai_runner: Any, client: Client, fake_openai: FakeOpenAI
) -> None:
    context = {
        "step_title": "Discovery",
        "workflow": {"step_data": {"greeting": {"user_name": "Alex"}}},
        "last_block": {"reason": "not yet", "missing_criteria": ["memory_facts: 2/3 facts"]},
    }
    turn = _turn("k-context").model_copy(update={"step_context": context})
    assert isinstance(await request(client, turn, timeout=10.0), AgentReply)
    prompt = json.dumps(fake_openai.requests[0]["messages"], ensure_ascii=False)
    for told in ("Discovery", "Alex", "memory_facts: 2/3 facts"):
        assert told in prompt


@pytest.mark.parametrize("mode", ["malformed", "unsignalled", "empty"])
async def test_malformed_or_unsignalled_reply_is_stay(
    openai_runner: Any, client: Client, fake_openai: FakeOpenAI, mode: str
) -> None:
    fake_openai.mode = mode
    reply = await request(client, _turn(f"k-{mode}"), timeout=10.0)
    assert isinstance(reply, AgentReply)
    assert reply.workflow_signal.action == "stay" and not reply.step_completed
    assert len(fake_openai.requests) == 1  # not asked again


async def test_timeout_is_unavailable_with_one_request_and_nothing_recorded(
    openai_runner: Any, client: Client, fake_openai: FakeOpenAI
) -> None:
    fake_openai.mode = "slow"
    with pytest.raises(RemoteError) as caught:
        await request(client, _turn("k-slow"), timeout=10.0)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert len(fake_openai.requests) == 1  # max_retries is 0
    fake_openai.mode = "valid"
    reply = await request(client, _turn("k-slow"), timeout=10.0)  # the retry reaches the model
    assert isinstance(reply, AgentReply) and reply.step_completed


async def test_a_malformed_reply_still_counts_the_tokens_it_took(
    openai_runner: Any, client: Client, fake_openai: FakeOpenAI
) -> None:
    # The endpoint was paid for the 120 tokens of the reply it could not get right.
    fake_openai.mode = "malformed"
    reply = await request(client, _turn("k-paid"), timeout=10.0)
    assert isinstance(reply, AgentReply) and reply.workflow_signal.action == "stay"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (100, 20)


@pytest.fixture
async def runner_on(
    nats_url: str, database_url: str, tmp_path: Path, fake_openai: FakeOpenAI
) -> Any:
    """The runner on the fake endpoint, on SQLite and on PostgreSQL."""
    app = build(
        openai_settings(nats_url, database_url, fake_openai, qdrant_path=tmp_path / "qdrant")
    )
    await app.start()
    yield app
    await app.stop()


async def test_what_the_model_wrote_that_cannot_be_stored_is_left_out_of_the_turn(
    runner_on: Any, client: Client, fake_openai: FakeOpenAI
) -> None:
    # PostgreSQL's JSON and text types refuse U+0000: the reply log and the inbox failed there,
    # and the paid-for answer ended in an internal error.
    fake_openai.mode = "unstorable"
    reply = await request(client, _turn("k-nul"), timeout=10.0)
    assert isinstance(reply, AgentReply)
    assert reply.message == "Hello from the model"
    assert reply.extracted_data == {"inbox_items": ["buy milk", "call mom"]}
    assert reply.workflow_signal.data == {"note": "ab", "n": 2}
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (100, 20)
    inbox = await request(client, ListInboxItems(user_id="u"), timeout=5.0)
    assert isinstance(inbox, InboxItems)
    assert sorted(item.content for item in inbox.items) == ["buy milk", "call mom"]
    again = await request(client, _turn("k-nul"), timeout=10.0)  # recorded: not asked again
    assert again == reply and len(fake_openai.requests) == 1
