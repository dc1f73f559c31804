"""`agent.cmd.task` over a real NATS: DAG steps answered once, priced, recorded by key."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from genai_prices.data_snapshot import _bundled_snapshot
from nats.aio.client import Client
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql, sql_logs
from baton_agent_runner.adapters.models import OpenAISettings
from baton_agent_runner.adapters.task_models import ScriptedTaskModel, TaskAgents
from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.domain.task import TaskCall
from baton_agent_runner.service.tasks import PLACES
from baton_agent_runner.settings import AgentRunnerSettings
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import RunTask, TaskResult
from baton_contracts.money import dollars
from baton_eventstore import create_engine, migrate, schema_version
from baton_messaging import request as send

from .conftest import settings
from .fake_openai import FakeOpenAI

SCRIPTED_IN, SCRIPTED_OUT = 0.0001, 0.0002  # the shipped `scripted` price, USD per 1k tokens
RESEARCH = "Search and organize the latest developments in AI agents, listing 5 key points"
KNOWN = "coordinator, default, discovery, greeter, hisui, inbox_collector, kohaku, kokuyou, ruri"


@dataclass
class CountingScripted(ScriptedTaskModel):
    """The scripted task model, counting the calls that reach it."""

    calls: int = 0

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        return await super().respond(messages, info)


def start(config: AgentRunnerSettings, model: CountingScripted) -> AgentRunnerApp:
    agents = TaskAgents(OpenAISettings(config.openai_base_url, "x", 5.0, 0), scripted=model)
    return build(config, task_agents=agents)


@pytest.fixture
def scripted() -> CountingScripted:
    return CountingScripted()


@pytest.fixture
async def tasks(
    nats_url: str, sqlite_url: str, scripted: CountingScripted
) -> AsyncIterator[AgentRunnerApp]:
    app = start(settings(nats_url, sqlite_url, memory_backend="sql"), scripted)
    await app.start()
    yield app
    await app.stop()


def task(prompt: str = RESEARCH, **extra: Any) -> RunTask:
    fields: dict[str, Any] = {
        "user_id": "alice",
        "agent": "hisui",
        "run_id": "run-1",
        "step_id": "research",
        "idempotency_key": "run-1/research/1",
        "prompt": prompt,
    }
    return RunTask(**{**fields, **extra})


async def ask(client: Client, cmd: RunTask) -> TaskResult:
    result = await send(client, cmd, timeout=10.0)
    assert isinstance(result, TaskResult)
    return result


async def refused(client: Client, cmd: RunTask) -> RemoteError:
    with pytest.raises(RemoteError) as caught:
        await send(client, cmd, timeout=10.0)
    return caught.value


# --- answers -------------------------------------------------------------------------------


async def test_a_dispatch_step_gets_a_deterministic_answer_with_usage_and_cost(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    first = await ask(client, task(idempotency_key="a"))
    again = await ask(client, task(idempotency_key="b"))
    assert first == again and scripted.calls == 2  # two keys, two calls, one answer
    lines = first.output.splitlines()
    assert lines[0] == "Research notes on AI agents (5 key points):"
    assert [line[:2] for line in lines[1:6]] == ["1.", "2.", "3.", "4.", "5."]
    assert (first.agent, first.model, first.replayed) == ("hisui", "scripted", False)
    tokens_in, tokens_out = math.ceil(len(RESEARCH) / 4), math.ceil(len(first.output) / 4)
    assert (first.usage.input_tokens, first.usage.output_tokens) == (tokens_in, tokens_out)
    expected = (tokens_in * SCRIPTED_IN + tokens_out * SCRIPTED_OUT) / 1000
    assert first.cost_usd == pytest.approx(expected) and first.cost_usd > 0


async def test_the_seed_example_passes_each_output_on(
    tasks: AgentRunnerApp, client: Client
) -> None:
    research = await ask(client, task())
    summary_prompt = f"Write a 300-word summary based on the following:\n{research.output}"
    summary = await ask(
        client,
        task(summary_prompt, agent="kohaku", step_id="summarize", idempotency_key="s"),
    )
    assert '"Research notes on AI agents (5 key points):"' in summary.output
    review = await ask(
        client,
        task(
            "Review and revise the article",
            agent="ruri",
            step_id="review",
            idempotency_key="r",
            context=summary.output,
            context_from="summarize",
        ),
    )
    first_line = summary.output.splitlines()[0]
    assert review.output.splitlines()[0] == f"Review: {first_line[:159]}…"
    assert "- Reviewed: 1 lines from step summarize." in review.output
    tokens_in = math.ceil((len("Review and revise the article") + len(summary.output)) / 4)
    assert review.usage.input_tokens == tokens_in  # the context is read, and counted


async def test_a_step_without_an_agent_is_answered_by_default(
    tasks: AgentRunnerApp, client: Client
) -> None:
    result = await ask(client, task("Say hello to {{name}}", agent="default"))
    assert result.output == "Done: Say hello to {{name}}" and result.agent == "default"


async def test_a_permission_mode_reaches_the_agent(tasks: AgentRunnerApp, client: Client) -> None:
    result = await ask(client, task("Do it", agent="default", permission_mode="plan"))
    assert result.output == "Done: Do it\n(permission mode: plan)"


async def test_another_model_answers_scripted_under_its_name_and_price(
    nats_url: str, sqlite_url: str, client: Client, scripted: CountingScripted
) -> None:
    prices = {"claude-sonnet-4-20250514": {"input_usd_per_1k": 1.0, "output_usd_per_1k": 2.0}}
    config = settings(nats_url, sqlite_url, memory_backend="sql", model_prices=prices)
    app = start(config, scripted)
    await app.start()
    try:
        cmd = task("Do it", agent="default", model="claude-sonnet-4-20250514")
        result = await ask(client, cmd)
        assert result.model == "scripted:claude-sonnet-4-20250514"
        assert result.cost_usd == pytest.approx(
            (2 * 1.0 + 3 * 2.0) / 1000
        )  # "Do it", "Done: Do it"
        plain = await ask(client, task("Do it", agent="default", idempotency_key="plain"))
        assert plain.cost_usd == pytest.approx((2 * SCRIPTED_IN + 3 * SCRIPTED_OUT) / 1000)
    finally:
        await app.stop()


# --- idempotency ---------------------------------------------------------------------------


async def test_the_same_key_twice_calls_the_model_once(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    first = await ask(client, task())
    second = await ask(client, task())
    assert scripted.calls == 1
    assert second == first.model_copy(update={"replayed": True})


async def test_concurrent_duplicates_call_the_model_once(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    cmd = task(f"{RESEARCH} [[sleep:0.3]]")
    results = await asyncio.gather(*(ask(client, cmd) for _ in range(5)))
    assert scripted.calls == 1
    assert len({result.output for result in results}) == 1
    assert sorted(result.replayed for result in results) == [False, True, True, True, True]


async def test_a_shadow_step_is_answered_but_nothing_of_it_is_recorded(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    shadow = task(shadow=True)
    first = await ask(client, shadow)
    assert first.output.startswith("Research notes on AI agents") and first.cost_usd > 0
    assert await tasks.tasks.results.get("alice", shadow.idempotency_key) is None
    # The price of keeping nothing: the same key asked again (a retry after a crash) is
    # answered again by the model, not replayed.
    again = await ask(client, shadow)
    assert not again.replayed and scripted.calls == 2
    assert await tasks.tasks.results.get("alice", shadow.idempotency_key) is None
    live = await ask(client, task())  # the same key, not shadow: recorded from now on
    assert await tasks.tasks.results.get("alice", shadow.idempotency_key) == live


async def test_a_key_belongs_to_its_user(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    await ask(client, task())
    other = await ask(client, task(user_id="bob"))
    assert not other.replayed and scripted.calls == 2


async def test_the_record_survives_a_restart_on_sqlite(
    nats_url: str, sqlite_url: str, client: Client
) -> None:
    await _replayed_after_restart(client, settings(nats_url, sqlite_url, memory_backend="sql"))


async def test_the_record_survives_a_restart_on_postgres(
    nats_url: str, postgres_url: str, client: Client, tmp_path: Path
) -> None:
    config = settings(nats_url, postgres_url, memory_backend="sql", qdrant_path=tmp_path / "q")
    await _replayed_after_restart(client, config)


async def _replayed_after_restart(client: Client, config: AgentRunnerSettings) -> None:
    before, after = CountingScripted(), CountingScripted()
    app = start(config, before)
    await app.start()
    try:
        first = await ask(client, task())
        duplicates = await asyncio.gather(
            *(ask(client, task("Do it", idempotency_key="d")) for _ in range(3))
        )
    finally:
        await app.stop()
    app = start(config, after)
    await app.start()
    try:
        again = await ask(client, task())
    finally:
        await app.stop()
    assert (before.calls, after.calls) == (2, 0)
    assert again == first.model_copy(update={"replayed": True})
    assert sorted(d.replayed for d in duplicates) == [False, True, True]


async def test_a_second_replica_recording_the_same_key_gets_the_first_result(
    engine: AsyncEngine,
) -> None:
    """Two replicas share the database, not the lock: the unique key keeps the first result."""
    log = sql_logs.SqlTaskLog(engine, lambda: datetime.now(UTC))
    step = TaskCall(agent="hisui", run_id="r", step_id="s", prompt="p")
    first = TaskResult(output="first", agent="hisui", model="scripted")
    assert await log.put("alice", "k", step, first) == first
    late = await log.put("alice", "k", step, first.model_copy(update={"output": "second"}))
    assert late == first.model_copy(update={"replayed": True})
    assert await log.get("alice", "k") == first
    assert await log.get("bob", "k") is None


async def test_a_database_of_the_first_schema_gains_the_task_log(
    nats_url: str, sqlite_url: str, client: Client, scripted: CountingScripted
) -> None:
    engine = create_engine(sqlite_url)
    assert await migrate(engine, sql.COMPONENT, sql.STEPS[:1]) == 1
    await engine.dispose()
    app = start(settings(nats_url, sqlite_url, memory_backend="sql"), scripted)
    await app.start()
    try:
        assert await schema_version(app.engine, sql.COMPONENT) == len(sql.STEPS)
        assert not (await ask(client, task())).replayed
        assert (await ask(client, task())).replayed
    finally:
        await app.stop()


# --- refusals ------------------------------------------------------------------------------


async def test_an_unknown_agent_is_not_found_listing_the_known_ones(
    tasks: AgentRunnerApp, client: Client
) -> None:
    error = await refused(client, task(agent="nobody"))
    assert error.code is ErrorCode.NOT_FOUND
    assert error.body.message == f"agent 'nobody' has no profile; known: {KNOWN}"
    assert error.body.details[0].field == "agent"


async def test_an_unknown_provider_is_invalid_naming_the_known_ones(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    error = await refused(client, task(provider="anthropic", model="claude"))
    assert error.code is ErrorCode.INVALID
    assert [(d.field, d.message) for d in error.body.details] == [
        ("provider", "unknown provider 'anthropic'; known: openai, scripted")
    ]
    assert scripted.calls == 0


async def test_a_bad_permission_mode_is_invalid_and_so_is_every_other_problem(
    tasks: AgentRunnerApp, client: Client
) -> None:
    error = await refused(client, task(permission_mode="yolo", provider="nope"))
    assert error.code is ErrorCode.INVALID
    assert [d.field for d in error.body.details] == ["permission_mode", "provider"]
    assert "unknown mode 'yolo'; known: default, plan, acceptEdits, bypassPermissions" in (
        error.body.message
    )


async def test_a_step_estimated_above_its_budget_is_refused_before_the_call(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    error = await refused(client, task(budget_usd=0.0000001))
    assert error.code is ErrorCode.FORBIDDEN
    assert error.body.message.startswith("budget exceeded: agent hisui on scripted")
    assert error.body.details[0].field == "budget_usd" and scripted.calls == 0
    estimate = math.ceil(len(RESEARCH) / 4) * SCRIPTED_IN / 1000
    # Both sums readable: at six decimals they were "$0.000000 above the budget of $0.000000".
    assert error.body.message.endswith(
        f"would cost about {dollars(estimate, PLACES)} for the prompt alone, "
        "above the budget of $0.00000010"
    )
    assert dollars(estimate, PLACES) != "$0.000000"
    assert not (await ask(client, task(budget_usd=estimate, idempotency_key="ok"))).replayed


async def test_a_cost_above_the_budget_after_the_call_is_still_returned(
    tasks: AgentRunnerApp, client: Client
) -> None:
    result = await ask(client, task(f"{RESEARCH} [[cost:5]]", budget_usd=0.01))
    assert result.cost_usd == 5.0


async def test_a_model_slower_than_the_timeout_is_unavailable_and_nothing_is_recorded(
    tasks: AgentRunnerApp, client: Client, scripted: CountingScripted
) -> None:
    slow = task("Do it [[sleep:0.5]]", agent="kohaku", timeout_seconds=0.1)
    error = await refused(client, slow)
    assert error.code is ErrorCode.UNAVAILABLE
    assert error.body.message == "agent kohaku did not answer within 0.1s"
    result = await ask(client, slow.model_copy(update={"timeout_seconds": 5.0}))
    assert not result.replayed and scripted.calls == 2


async def test_the_price_table_is_loaded_at_start_not_by_the_first_step(
    nats_url: str, sqlite_url: str, scripted: CountingScripted
) -> None:
    # PydanticAI loads genai-prices' table on the first response it prices (a quarter of a
    # second): a fresh agent-runner's first step with a 0.1 s timeout never reached its model.
    _bundled_snapshot.cache_clear()  # as in a fresh process, whatever ran before in this one
    app = start(settings(nats_url, sqlite_url, memory_backend="sql"), scripted)
    await app.start()
    try:
        assert _bundled_snapshot.cache_info().currsize == 1
    finally:
        await app.stop()


async def test_a_failing_model_is_an_internal_error_naming_the_agent(
    tasks: AgentRunnerApp, client: Client
) -> None:
    error = await refused(client, task("Do it [[fail]]"))
    assert error.code is ErrorCode.INTERNAL
    assert error.body.message == "agent hisui failed: scripted failure: the prompt says [[fail]]"


async def test_fail_attempts_fails_the_first_n_calls_of_one_step(
    tasks: AgentRunnerApp, client: Client
) -> None:
    flaky = "Do it [[fail-attempts:2]]"
    for attempt in (1, 2):
        error = await refused(
            client, task(flaky, agent="default", idempotency_key=f"try-{attempt}")
        )
        assert (
            error.code is ErrorCode.INTERNAL and f"attempt {attempt} of the 2" in error.body.message
        )
    done = await ask(client, task(flaky, agent="default", idempotency_key="try-3"))
    assert done.output == "Done: Do it"
    other_step = task(flaky, agent="default", step_id="other", idempotency_key="other-1")
    assert (await refused(client, other_step)).code is ErrorCode.INTERNAL


# --- an OpenAI-compatible endpoint ---------------------------------------------------------


class TextFakeOpenAI(FakeOpenAI):
    """Chat completions in plain text (`mode` "valid"), late ("slow") or HTTP 500 ("error")."""


class TextHandler(BaseHTTPRequestHandler):
    server: TextFakeOpenAI

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if self.server.mode == "slow":
            time.sleep(1.0)
        if self.server.mode == "error":
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        message = {"role": "assistant", "content": "Model says hi"}
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
        }
        payload = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def text_openai() -> Iterator[TextFakeOpenAI]:
    server = TextFakeOpenAI(("127.0.0.1", 0), TextHandler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


async def test_the_openai_provider_gets_the_model_name_context_and_instructions(
    nats_url: str, sqlite_url: str, client: Client, text_openai: TextFakeOpenAI
) -> None:
    base_url = f"http://127.0.0.1:{text_openai.server_address[1]}/v1"
    config = settings(nats_url, sqlite_url, memory_backend="sql", openai_base_url=base_url)
    app = start(config, CountingScripted())
    await app.start()
    try:
        handoff = task(
            "Review and revise the article",
            agent="ruri",
            provider="openai",
            model="my-model",
            context="The draft.\nSecond line.",
            context_from="draft",
            permission_mode="acceptEdits",
        )
        result = await ask(client, handoff)
        assert (result.output, result.model) == ("Model says hi", "openai:my-model")
        assert (result.usage.input_tokens, result.usage.output_tokens) == (1000, 500)
        assert result.cost_usd == pytest.approx(0.003 + 0.5 * 0.015)  # the default price row
        sent = text_openai.requests[0]
        assert sent["model"] == "my-model"
        said = json.dumps(sent["messages"])
        assert "You are ruri, a reviewer." in said and "Permission mode acceptEdits" in said
        assert 'whole output of step \\"draft\\" (23 characters)' in said
        assert "<<<CONTEXT\\nThe draft.\\nSecond line.\\nCONTEXT>>>" in said
        text_openai.mode = "slow"
        late = handoff.model_copy(update={"idempotency_key": "k3", "timeout_seconds": 0.3})
        error = await refused(client, late)
        assert (error.code, error.body.message) == (
            ErrorCode.UNAVAILABLE,
            "agent ruri did not answer within 0.3s",
        )
        text_openai.mode = "error"
        error = await refused(client, handoff.model_copy(update={"idempotency_key": "k2"}))
        assert error.code is ErrorCode.INTERNAL and error.body.message.startswith(
            "agent ruri failed:"
        )
    finally:
        await app.stop()
