"""Faults of an OpenAI-compatible endpoint a turn or a step must not record as an answer,
against a scripted fake server on 127.0.0.1 (found by a review of the model path)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from nats.aio.client import Client

from baton_agent_runner.adapters.models import MAX_MODEL_REQUESTS
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.bootstrap import build
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import RunAgent, RunTask
from baton_messaging import request

from .conftest import settings
from .fake_openai import FakeOpenAI


def url(server: FakeOpenAI) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }  # fmt: skip


def calls(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"id": "c1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip
    return completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")


def turn(key: str) -> RunAgent:
    return RunAgent(user_id="u", agent="greeter", instance_id="i", current_step="greeting",
                    message="hello there friend", idempotency_key=key)  # fmt: skip


async def test_an_error_sent_with_http_200_is_unavailable_and_not_recorded(
    nats_url: str, sqlite_url: str, client: Client, fake_openai: FakeOpenAI
) -> None:
    # Gateways (OpenRouter, LiteLLM proxies) report an upstream 429 or 5xx as HTTP 200 with an
    # error body: taken for a malformed reply, its fallback was recorded under the key, and
    # the workflow's retry after the endpoint recovered got that fallback again.
    fake_openai.respond = lambda body, n: (
        200,
        {"error": {"message": "Rate limit exceeded", "code": 429}},
    )
    app = build(
        settings(nats_url, sqlite_url, agent_model="openai:m", openai_base_url=url(fake_openai))
    )
    await app.start()
    try:
        with pytest.raises(RemoteError) as caught:
            await request(client, turn("k-env"), timeout=10.0)
        assert caught.value.code == ErrorCode.UNAVAILABLE
        answer = {"message": "Hi!", "workflow_signal": {"action": "stay"}}
        fake_openai.respond = lambda body, n: (200, calls("final_result", answer))
        again = await request(client, turn("k-env"), timeout=10.0)
        assert again.message == "Hi!"
    finally:
        await app.stop()


async def test_a_model_that_keeps_calling_tools_is_stopped_and_answered_as_malformed(
    nats_url: str, sqlite_url: str, client: Client, fake_openai: FakeOpenAI
) -> None:
    # PydanticAI's default of 50 requests a run: 50 paid requests, then `unavailable`, and
    # every retry of the turn 50 more.
    fake_openai.respond = lambda body, n: (200, calls("recall_facts", {"query": f"q{n}"}))
    profiles = load_profiles(SHIPPED_PROFILES)
    profiles["greeter"] = profiles["greeter"].model_copy(update={"tools": ["recall_facts"]})
    base = url(fake_openai)
    config = settings(nats_url, sqlite_url, agent_model="openai:m", openai_base_url=base,
                      memory_backend="sql")  # fmt: skip
    app = build(config, profiles=profiles)
    await app.start()
    try:
        reply = await request(client, turn("k-loop"), timeout=30.0)
        assert reply.workflow_signal.action == "stay"  # the fallback: as a malformed answer
        assert reply.usage.input_tokens == 100 * MAX_MODEL_REQUESTS  # paid, so counted
        again = await request(client, turn("k-loop"), timeout=30.0)
        assert again == reply
        assert len(fake_openai.requests) == MAX_MODEL_REQUESTS
    finally:
        await app.stop()


async def test_a_step_cut_at_max_tokens_fails_and_is_not_its_output(
    nats_url: str, sqlite_url: str, client: Client, fake_openai: FakeOpenAI
) -> None:
    # Recorded as the step's output, the steps after it got half an article as a whole one.
    cut = {"role": "assistant", "content": "The revised article begins: Once upon a ti"}
    fake_openai.respond = lambda body, n: (200, completion(cut, finish="length"))
    app = build(
        settings(nats_url, sqlite_url, memory_backend="sql", openai_base_url=url(fake_openai))
    )
    await app.start()
    try:
        step = RunTask(user_id="u", agent="ruri", run_id="r", step_id="s", prompt="Revise it",
                       provider="openai", model="m", idempotency_key="k-len")  # fmt: skip
        with pytest.raises(RemoteError) as caught:
            await request(client, step, timeout=10.0)
        assert "cut at max_tokens" in str(caught.value)
    finally:
        await app.stop()


async def test_a_body_that_is_not_a_completion_is_unavailable_and_not_recorded(
    nats_url: str, sqlite_url: str, client: Client, fake_openai: FakeOpenAI
) -> None:
    # A proxy's error page, or a base URL at a web app, sent with HTTP 200: taken for the
    # model's malformed reply, the turn stayed on a canned apology recorded under the key, so
    # the retry after the endpoint was fixed got the apology again (a body cut mid-JSON was
    # already `unavailable`).
    fake_openai.respond = lambda body, n: (200, "<html>502 Bad Gateway</html>")
    app = build(
        settings(nats_url, sqlite_url, agent_model="openai:m", openai_base_url=url(fake_openai))
    )
    await app.start()
    try:
        with pytest.raises(RemoteError) as caught:
            await request(client, turn("k-page"), timeout=10.0)
        assert caught.value.code == ErrorCode.UNAVAILABLE
        assert "its model is unavailable: the model endpoint answered HTTP 200 with text" in str(
            caught.value
        )
        answer = {"message": "Hi!", "workflow_signal": {"action": "stay"}}
        fake_openai.respond = lambda body, n: (200, calls("final_result", answer))
        again = await request(client, turn("k-page"), timeout=10.0)
        assert again.message == "Hi!"
    finally:
        await app.stop()


async def test_a_step_answered_with_text_fails_saying_so_and_is_not_kept(
    nats_url: str, sqlite_url: str, client: Client, fake_openai: FakeOpenAI
) -> None:
    # A proxy's error page with HTTP 200 on a DAG step was `internal`, "ModelAPIError: the
    # endpoint answered...": the name of a PydanticAI class, not where to look. Nothing of it
    # is kept: the same key answers once the endpoint is fixed.
    fake_openai.respond = lambda body, n: (200, "<html>502 Bad Gateway</html>")
    app = build(
        settings(nats_url, sqlite_url, memory_backend="sql", openai_base_url=url(fake_openai))
    )
    await app.start()
    try:
        step = RunTask(user_id="u", agent="ruri", run_id="r", step_id="s", prompt="Revise it",
                       provider="openai", model="m", idempotency_key="k-page")  # fmt: skip
        with pytest.raises(RemoteError) as caught:
            await request(client, step, timeout=10.0)
        assert str(caught.value) == (
            "internal: agent ruri failed: the model endpoint answered HTTP 200 with text, not a "
            "chat completion (a proxy's error page, or BATON_OPENAI_BASE_URL pointing at "
            "something other than the API)"
        )
        answer = {"role": "assistant", "content": "Revised."}
        fake_openai.respond = lambda body, n: (200, completion(answer))
        again = await request(client, step, timeout=10.0)
        assert again.output == "Revised."
    finally:
        await app.stop()
