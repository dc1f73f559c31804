"""Every agent-runner responder over a real NATS: turns, counts, health, idempotency, errors."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import shutil

import pytest
from faststream.nats import NatsBroker
from nats.aio.client import Client

from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_contracts import HEALTH_QUERIES, ErrorCode, HealthStatus, RemoteError
from baton_contracts.agent_api import Count, CountInboxItems, CountMemoryFacts, RunAgent
from baton_eventstore import create_engine
from baton_eventstore.disk_room import DiskUsage
from baton_messaging import MessagingSettings, build_broker, request, start_broker
from baton_workflow.adapters.agent_runner import NatsAgentRunnerQueries
from tests.held_ports import held_port

from .conftest import Conversation, CountingFactory, settings


async def test_full_onboarding_in_russian_with_the_off_topic_item(
    runner: AgentRunnerApp, client: Client
) -> None:
    talk = Conversation(client)
    assert (await talk.say("greeter", "greeting", "привет")).workflow_signal.action == "stay"
    assert (await talk.say("greeter", "greeting", "понял, поехали")).step_completed
    off = await talk.say("discovery", "discovery", "Запиши в inbox: купить молоко")
    assert off.workflow_signal.action == "stay" and "приоритетами" in off.message
    await talk.say("discovery", "discovery", "Работа сейчас главное; здоровье тоже")
    summary = await talk.say("discovery", "discovery", "И семья")
    assert "Вот что я понял о тебе" in summary.message and not summary.step_completed
    assert (await talk.say("discovery", "discovery", "да, верно")).step_completed
    first = await talk.say("inbox_collector", "brain_dump", "позвонить маме\nоплатить налог")
    assert "купить молоко" in first.message and not first.step_completed
    done = await talk.say("inbox_collector", "brain_dump", "это всё")
    assert done.step_completed
    final = await talk.say("coordinator", "completed", "спасибо")
    assert "Приоритетов: 3" in final.message and "inbox: 3" in final.message


async def test_full_onboarding_in_english(runner: AgentRunnerApp, client: Client) -> None:
    talk = Conversation(client, "bob")
    assert (await talk.say("greeter", "greeting", "got it")).step_completed
    await talk.say("discovery", "discovery", "Work and health matter; also my hobbies")
    assert (await talk.say("discovery", "discovery", "yes")).step_completed
    stay = await talk.say("inbox_collector", "brain_dump", "- milk\n- bread\ndone")
    assert not stay.step_completed and "1 more" in stay.message
    assert (await talk.say("inbox_collector", "brain_dump", "eggs; that's all")).step_completed
    final = await talk.say("coordinator", "completed", "thanks")
    assert "Priorities: 3" in final.message and "inbox items: 3" in final.message


async def test_count_queries_answer_what_the_workflow_checkers_ask(
    runner: AgentRunnerApp, client: Client, nats_url: str
) -> None:
    talk = Conversation(client, "carol")
    await talk.say("discovery", "discovery", "work, health; relationships")
    await talk.say("discovery", "discovery", "add to my inbox: buy milk")
    broker: NatsBroker = build_broker(MessagingSettings(nats_url=nats_url), "checker-test")
    await start_broker(broker)
    try:
        queries = NatsAgentRunnerQueries(broker, timeout=5.0)
        assert await queries.count_memory_facts("carol", "priorities") == 3
        assert await queries.count_memory_facts("carol", "other") == 0
        assert await queries.count_inbox_items("carol") == 0  # deferred is not in the inbox yet
        await talk.say("inbox_collector", "brain_dump", "taxes")
        assert await queries.count_inbox_items("carol") == 2
    finally:
        await broker.stop()
    new = await request(client, CountInboxItems(user_id="carol", status="new"), timeout=5.0)
    assert new == Count(count=2)
    assert await request(client, CountMemoryFacts(user_id="nobody"), timeout=5.0) == Count(count=0)


async def test_a_correction_replaces_the_fact(runner: AgentRunnerApp, client: Client) -> None:
    talk = Conversation(client, "dave")
    await talk.say("discovery", "discovery", "work; health; hobbies")
    await talk.say("discovery", "discovery", "no, work means my startup")
    facts = await runner.runner.memory.facts("dave", "priorities")
    assert facts["work"] == "my startup" and len(facts) == 3  # without "no, work means"


async def test_answers_to_discoverys_follow_up_questions_are_kept_apart_from_priorities(
    runner: AgentRunnerApp, client: Client
) -> None:
    # They count as no life area: neither for the step's memory_facts criterion nor for the
    # coordinator's "Priorities: 3".
    talk = Conversation(client, "hana")
    await talk.say("discovery", "discovery", "work; health; family")
    asked = await talk.say("discovery", "discovery", "yes", can_complete=False)
    assert asked.message.endswith("Which of these matters most to you right now?")
    await talk.say("discovery", "discovery", "Health, definitely", can_complete=False)
    memory = runner.runner.memory
    assert await memory.facts("hana", "situation") == {"focus": "health — Health, definitely"}
    assert len(await memory.facts("hana", "priorities")) == 3
    final = await talk.say("coordinator", "completed", "thanks")
    assert "Priorities: 3" in final.message


@pytest.mark.parametrize("backend", ["mem0", "sql"])
async def test_an_area_the_user_takes_back_is_forgotten(
    nats_url: str, sqlite_url: str, client: Client, backend: str
) -> None:
    app = build(settings(nats_url, sqlite_url, memory_backend=backend))
    await app.start()
    try:
        talk = Conversation(client, "gail")
        await talk.say("discovery", "discovery", "work; health; hobbies")
        corrected = await talk.say("discovery", "discovery", "Actually I don't care about work")
        facts = await app.runner.memory.facts("gail", "priorities")
        assert set(facts) == {"health", "hobbies"}, facts
        assert "work:" not in corrected.message and not corrected.step_completed
        await talk.say("discovery", "discovery", "Убери хобби")
        assert set(await app.runner.memory.facts("gail", "priorities")) == {"health"}
    finally:
        await app.stop()


async def test_same_idempotency_key_returns_the_recorded_reply_without_a_model_call(
    runner: AgentRunnerApp, client: Client, counting: type[CountingFactory]
) -> None:
    talk = Conversation(client, "erin")
    first = await talk.say("inbox_collector", "brain_dump", "milk; bread", key="same")
    again = await talk.say("inbox_collector", "brain_dump", "milk; bread", key="same")
    assert again == first and counting.calls == 1
    assert await request(client, CountInboxItems(user_id="erin"), timeout=5.0) == Count(count=2)


async def test_health(runner: AgentRunnerApp, client: Client) -> None:
    status = await request(client, HEALTH_QUERIES["agent"](), timeout=5.0)
    checks = {"database": True, **disk_check(runner, True)}
    assert status == HealthStatus(service="agent", healthy=True, checks=checks)


def disk_check(runner: AgentRunnerApp, room: bool) -> dict[str, bool]:
    """SQLite's disk is watched; PostgreSQL's server watches its own."""
    return {"disk_has_room": room} if runner.engine.dialect.name == "sqlite" else {}


async def test_health_says_when_the_sqlite_disk_is_full_and_stays_healthy(
    runner: AgentRunnerApp, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every write then fails "database or disk is full", while the database still answers.
    monkeypatch.setattr(shutil, "disk_usage", lambda _: DiskUsage(10 << 30, 10 << 30, 4096))
    status = await request(client, HEALTH_QUERIES["agent"](), timeout=5.0)
    checks = {"database": True, **disk_check(runner, False)}
    assert status == HealthStatus(service="agent", healthy=True, checks=checks)


async def test_health_says_so_while_the_database_does_not_answer(
    runner: AgentRunnerApp, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It reported the flag set at start, healthy with every request answering 503.
    gone = create_engine(f"postgresql+asyncpg://postgres@127.0.0.1:{held_port()}/gone")
    monkeypatch.setattr(runner, "engine", gone)
    status = await request(client, HEALTH_QUERIES["agent"](), timeout=5.0)
    await gone.dispose()
    assert status == HealthStatus(service="agent", healthy=False, checks={"database": False})


async def test_unknown_agent_is_not_found_naming_the_field(
    runner: AgentRunnerApp, client: Client
) -> None:
    cmd = RunAgent(
        user_id="u",
        agent="nobody",
        instance_id="i",
        current_step="s",
        message="hi",
        idempotency_key="k",
    )
    with pytest.raises(RemoteError) as caught:
        await request(client, cmd, timeout=5.0)
    assert caught.value.code == ErrorCode.NOT_FOUND
    assert caught.value.body.details[0].field == "agent"


async def test_empty_message_is_invalid_naming_the_field(
    runner: AgentRunnerApp, client: Client
) -> None:
    body = (
        b'{"type":"agent.run","user_id":"u","agent":"greeter","instance_id":"i",'
        b'"current_step":"s","message":"","idempotency_key":"k"}'
    )
    raw = await client.request("agent.cmd.run", body, timeout=5.0)
    assert b'"invalid"' in raw.data and b'"message"' in raw.data
