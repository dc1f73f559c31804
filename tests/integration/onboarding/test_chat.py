"""The onboarding conversation through the gateway's HTTP API, with the scripted agents."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import nats
from nats.aio.client import Client

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import RunAgent
from baton_messaging import request
from baton_workflow.domain import commands as dc
from baton_workflow.service.handlers import signal_time
from baton_workflow.service.turns import commit_turn

from .conftest import Stack, User


@asynccontextmanager
async def nats_client(stack: Stack) -> AsyncIterator[Client]:
    nc = await nats.connect(stack.nats_url)
    try:
        yield nc
    finally:
        await nc.close()


async def chat_until(user: User, step: str, texts: list[str]) -> list[dict[str, Any]]:
    """Send `texts` in order; every reply until the last is still on `step`."""
    replies = [await user.say(text) for text in texts]
    for reply in replies[:-1]:
        assert reply["turn"]["instance"]["current_step"] == step, reply
    return replies


async def inbox_soon(user: User) -> list[str]:
    """The user's inbox once it has something (the agent-runner reacts to an event)."""
    for _ in range(100):
        if items := (await user.get("/api/inbox"))["items"]:
            return [item["content"] for item in items]
        await asyncio.sleep(0.05)
    raise AssertionError("the inbox stayed empty for 5 s")


async def test_full_onboarding_in_russian_with_the_off_topic_example(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "маша")
    await user.start()
    hello = await user.say("Привет")
    assert hello["reply"]["agent"] == "greeter" and hello["turn"]["outcome"] == "stayed"
    ready = await user.say("Понял, поехали")
    assert ready["turn"]["outcome"] == "transitioned"
    assert ready["progress"]["current_step"] == "discovery"
    assert ready["progress"]["completion_percentage"] > 0

    # Seed 000, "перескок": an inbox request during discovery is acknowledged, kept for later,
    # and the step continues.
    off = await user.say("Запиши в inbox: купить молоко")
    assert off["turn"]["outcome"] == "stayed"
    assert off["turn"]["instance"]["current_step"] == "discovery"
    assert "приоритет" in off["reply"]["text"].lower()
    assert (await user.get("/api/inbox"))["items"] == []

    await user.say("Работа сейчас главное; здоровье тоже")
    summary = await user.say("И семья")
    assert "Вот что я понял" in summary["reply"]["text"]
    facts = await user.get("/api/memory", category="priorities")
    assert len(facts["facts"]) == 3
    # The fourth message confirms, but discovery needs five: the agent (told by the
    # can_complete pre-check) asks what seed 001 still wants to know, and the answer closes.
    # Which area matters most was said with the areas ("Работа сейчас главное"): not asked.
    not_yet = await user.say("да, верно")
    assert not_yet["turn"]["outcome"] == "stayed"
    assert not_yet["reply"]["text"].endswith(
        "Что сейчас больше всего мешает — время, силы, что-то ещё?"
    )
    confirmed = await user.say("Время")
    assert confirmed["turn"]["outcome"] == "transitioned", confirmed["turn"]
    assert confirmed["progress"]["current_step"] == "brain_dump"
    # The deferred item lands in the inbox as brain_dump starts, before anything is said there.
    assert await inbox_soon(user) == ["купить молоко"]

    first = await user.say("позвонить маме\nоплатить налог")
    assert "купить молоко" in first["reply"]["text"]
    inbox = [i["content"] for i in (await user.get("/api/inbox"))["items"]]
    assert sorted(inbox) == sorted(["купить молоко", "позвонить маме", "оплатить налог"])
    early = await user.say("это всё")  # brain_dump needs three messages
    assert early["turn"]["instance"]["current_step"] == "brain_dump"
    done = await user.say("это всё")
    assert done["progress"]["current_step"] == "setup_complete", done["turn"]

    final = await user.say("спасибо")
    assert final["turn"]["outcome"] == "completed"
    assert final["progress"]["status"] == "completed"
    assert final["progress"]["completion_percentage"] == 100.0
    assert "3" in final["reply"]["text"]

    conversation = await user.get(f"/api/workflows/{user.instance}/messages")
    roles = [m["role"] for m in conversation["messages"]]
    assert roles == ["user", "assistant"] * 11
    assert conversation["messages"][0]["text"] == "Привет"
    assert conversation["messages"][-1]["agent"] == "coordinator"
    after = await user.send("и ещё кое-что")
    assert after.status_code == 409 and "completed" in after.json()["error"]["message"]
    assert [d["field"] for d in after.json()["error"]["details"]] == ["path.instance_id"]


async def test_a_to_do_list_said_in_discovery_is_in_the_inbox_at_the_brain_dump(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # It was told it waits for the brain dump and then was not there: typed again, or lost.
    user = User(http, "dora")
    await user.start()
    await user.say("Hello there")
    await user.say("Got it, let's go")
    tasks = await user.say("call mom; pay rent")
    assert "kept them for the next step" in tasks["reply"]["text"], tasks["reply"]
    assert (await user.get("/api/inbox"))["items"] == []  # deferred until the brain dump
    await chat_until(user, "discovery", ["Work and health matter most", "Also my hobbies", "yes"])
    assert (await user.say("Work"))["progress"]["current_step"] == "brain_dump"
    assert sorted(await inbox_soon(user)) == ["call mom", "pay rent"]
    first = await user.say("book a dentist")
    assert "call mom; pay rent" in first["reply"]["text"], first["reply"]


async def test_full_onboarding_in_english(stack: Stack, http: httpx.AsyncClient) -> None:
    user = User(http, "bob")
    await user.start()
    hello = await user.say("Hello there, my name is Bob")
    assert hello["reply"]["text"].startswith("Hi, Bob! I am Baton")
    assert (await user.say("Got it, let's go"))["progress"]["current_step"] == "discovery"
    # Seed 000 §5: the name the greeter learned is in the greeting's step data.
    context = (await user.get(f"/api/workflows/{user.instance}"))["context"]
    assert context["step_data"]["greeting"]["user_name"] == "Bob"
    await user.say("Work and health matter most")
    summary = await user.say("Also my hobbies")
    assert "here is what i understood" in summary["reply"]["text"].lower(), summary
    await chat_until(user, "discovery", ["yes", "yes"])
    assert (await user.say("yes, that's right"))["progress"]["current_step"] == "brain_dump"
    more = await user.say("- milk\n- bread")
    assert more["turn"]["instance"]["current_step"] == "brain_dump"
    assert "1 more" in more["reply"]["text"]
    await user.say("call the bank")
    assert (await user.say("that's all"))["progress"]["current_step"] == "setup_complete"
    final = await user.say("thanks")
    assert final["progress"]["status"] == "completed"
    assert final["reply"]["text"].startswith("Congratulations, Bob, onboarding is complete!")
    assert "Priorities: 3" in final["reply"]["text"] and "inbox items: 3" in final["reply"]["text"]
    items = (await user.get("/api/inbox"))["items"]
    assert items[0]["content"] == "call the bank"  # newest first
    assert {i["source"] for i in items} == {"onboarding"}
    assert {i["status"] for i in items} == {"new"}
    assert all(i["created_at"] for i in items)


async def test_the_discovery_step_data_counts_questions_and_facts_as_seed_000_shows(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # Seed 000 §5: "discovery": {"started_at": ..., "questions_asked": 5, "facts_collected": 2}.
    user = User(http, "counter")
    await user.start()
    await user.say("Hello there")
    assert (await user.say("Got it, let's go"))["progress"]["current_step"] == "discovery"

    async def discovery_data() -> dict[str, Any]:
        context = (await user.get(f"/api/workflows/{user.instance}"))["context"]
        return dict(context["step_data"]["discovery"])

    two = await user.say("Work and health matter most")
    assert "?" in two["reply"]["text"], two["reply"]
    data = await discovery_data()
    assert (data["questions_asked"], data["facts_collected"]) == (1, 2), data
    assert data["facts_told"] == ["health", "work"], data  # as docs/agents.md shows it
    await user.say("Also my hobbies")  # the summary, "Is that right?"
    data = await discovery_data()
    assert (data["questions_asked"], data["facts_collected"]) == (2, 3), data
    await user.say("Actually, no hobbies")  # takes a fact back
    data = await discovery_data()
    assert data["facts_collected"] == 2 and data["questions_asked"] == 3, data
    assert "started_at" in data and data["messages"] == 3
    # The greeting collects no facts: its data carries no counters.
    greeting = (await user.get(f"/api/workflows/{user.instance}"))["context"]["step_data"]
    assert "questions_asked" not in greeting["greeting"], greeting


async def test_the_same_client_message_id_twice_is_one_turn_and_one_agent_call(
    stack: Stack, http: httpx.AsyncClient, agent_calls: list[bytes]
) -> None:
    user = User(http, "cid")
    await user.start()
    first = await user.send("Hello", client_message_id="m-1")
    again = await user.send("Hello", client_message_id="m-1")
    assert first.status_code == again.status_code == 200, again.text
    assert again.json()["reply"] == first.json()["reply"]
    assert again.json()["replayed"] is True and first.json()["replayed"] is False
    assert len(agent_calls) == 1
    assert (await user.get(f"/api/workflows/{user.instance}"))["messages_in_step"] == 1
    assert len((await user.get(f"/api/workflows/{user.instance}/messages"))["messages"]) == 2


async def test_another_text_under_a_used_client_message_id_is_refused_not_answered(
    stack: Stack, http: httpx.AsyncClient, agent_calls: list[bytes]
) -> None:
    # A page that restarts its id counter after a reload sends "m-1" again with a new text:
    # answered with the first reply, the new message would be dropped without a word.
    user = User(http, "reused")
    await user.start()
    first = await user.send("Hello", client_message_id="m-1")
    assert first.status_code == 200, first.text
    again = await user.send("  Hello \n", client_message_id="m-1")  # a retry, spaced otherwise
    assert again.status_code == 200 and again.json()["replayed"] is True, again.text
    other = await user.send("Got it, let's go", client_message_id="m-1")
    assert other.status_code == 409, other.text
    assert other.json()["error"]["details"][0]["field"] == "body.client_message_id"
    assert other.json()["error"]["message"] == (
        "client_message_id 'm-1' was already used for another text ('Hello'); "
        "send a new message with a new id"
    )
    assert len(agent_calls) == 1
    said = (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"]
    assert [m["text"] for m in said if m["role"] == "user"] == ["Hello"]
    assert await user.step() == "greeting"


async def test_another_text_under_an_id_the_agent_answered_but_the_workflow_lost_is_a_409(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # The agent answered "Hello" under m-1, then the turn failed in the workflow (its append,
    # or the gateway timed out): the workflow recorded nothing, the agent-runner the reply.
    user = User(http, "lost-turn")
    await user.start()
    await answered_but_lost(stack, user, "greeting")
    other = await user.send("Got it, let's go", client_message_id="m-1")
    assert other.status_code == 409, other.text
    assert other.json()["error"]["details"][0]["field"] == "body.client_message_id"
    assert other.json()["error"]["message"] == unrecorded("m-1", "greeting", "greeter")
    assert (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"] == []
    assert await user.step() == "greeting"
    # The client's honest retry of m-1 gets the reply the agent gave it.
    retry = await user.send("Hello", client_message_id="m-1")
    assert retry.status_code == 200, retry.text
    assert retry.json()["turn"]["instance"]["messages_in_step"] == 1


async def answered_but_lost(stack: Stack, user: User, step: str) -> None:
    """The greeter answers "Hello" under m-1 on `step` straight over NATS: a turn the agent
    answered and the workflow service never recorded."""
    lost = RunAgent(
        user_id=user.name,
        agent="greeter",
        instance_id=user.instance,
        current_step=step,
        message="Hello",
        idempotency_key=f"{user.instance}:m-1",
    )
    async with nats_client(stack) as nc:
        await request(nc, lost, timeout=10.0)


def unrecorded(message_id: str, step: str, agent: str) -> str:
    return (
        f"client_message_id '{message_id}' was already used for a turn the agent answered but "
        "this instance did not record (it failed after the answer), and that turn asked "
        "something else: another text, or this text on another step or to another agent "
        f"than now (step '{step}', agent '{agent}'); send the message with a new id"
    )


async def test_the_same_text_under_an_id_lost_on_another_step_is_not_called_another_text(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # The agent answered "Hello" under m-1 on the discovery step and the turn was lost; the
    # instance is on greeting now. The text is the same: only the step differs.
    user = User(http, "lost-step")
    await user.start()
    await answered_but_lost(stack, user, "discovery")
    again = await user.send("Hello", client_message_id="m-1")
    assert again.status_code == 409, again.text
    error = again.json()["error"]
    assert error["message"] == unrecorded("m-1", "greeting", "greeter")
    assert error["details"] == [
        {
            "field": "body.client_message_id",
            "message": "already used for an unrecorded turn that asked something else",
        }
    ]
    assert (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"] == []


class RecordedElsewhere:
    """The agent-runner refusing a key whose turn another replica has just recorded (with
    another text): the workflow reads its log again and says what differs."""

    def __init__(self, stack: Stack) -> None:
        self.svc = stack.workflow.services

    async def run(self, turn: RunAgent) -> Any:
        instance, command_id = turn.idempotency_key.split(":", 1)
        first = dc.RecordExchange(
            command_id=command_id, signal=None, user_text="Hi", agent_text="Hello!", agent="x"
        )
        await commit_turn(self.svc, instance, turn.user_id, lambda _: first, signal_time(None))
        detail = ErrorDetail(field="idempotency_key", message="already used for another request")
        raise RemoteError.of(ErrorCode.CONFLICT, "idempotency key used", [detail])


async def test_a_key_refused_for_a_turn_recorded_meanwhile_is_answered_from_the_log(
    stack: Stack, http: httpx.AsyncClient, monkeypatch: Any
) -> None:
    user = User(http, "raced")
    await user.start()
    monkeypatch.setattr(stack.workflow.services, "agents", RecordedElsewhere(stack))
    other = await user.send("Hello", client_message_id="m-1")
    assert other.status_code == 409, other.text
    assert other.json()["error"]["message"] == (
        "client_message_id 'm-1' was already used for another text ('Hi'); "
        "send a new message with a new id"
    )


async def test_bad_text_is_refused_and_nothing_is_recorded(
    stack: Stack, http: httpx.AsyncClient, agent_calls: list[bytes]
) -> None:
    user = User(http, "bad")
    await user.start()
    for text in ("", "   \n\t ", "\u200b\u200b", "\ufeff \u2060\u200d"):  # zero-width: blank
        blank = await user.send(text)
        assert blank.status_code == 422, blank.text
        assert blank.json()["error"]["details"] == [
            {"field": "body.text", "message": "must contain at least one character that shows"}
        ]
    nul = await user.send("milk\u0000eggs")  # PostgreSQL's JSON cannot store U+0000
    assert nul.status_code == 422, nul.text
    assert nul.json()["error"]["details"][0]["field"] == "body.text"
    too_long = await user.send("x" * 8001)
    assert too_long.status_code == 413, too_long.text
    assert too_long.json()["error"]["details"][0]["field"] == "body.text"
    assert "8001" in too_long.json()["error"]["message"]
    missing = await http.post(
        f"/api/workflows/{user.instance}/messages", json={}, headers=user.headers
    )
    assert missing.status_code == 422, missing.text
    assert missing.json()["error"]["details"][0]["field"] == "body.text"  # the same name
    assert agent_calls == []
    assert (await user.get(f"/api/workflows/{user.instance}/messages"))["messages"] == []
    assert (await user.say("y" * 8000))["turn"]["instance"]["messages_in_step"] == 1


async def test_another_users_instance_is_not_found(stack: Stack, http: httpx.AsyncClient) -> None:
    owner, other = User(http, "owner"), User(http, "intruder")
    await owner.start()
    other.instance = owner.instance
    assert (await other.send("hi")).status_code == 404
    response = await http.get(f"/api/workflows/{owner.instance}/messages", headers=other.headers)
    assert response.status_code == 404


async def test_brain_dump_refuses_to_complete_with_two_items(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "two-items")
    await user.start()
    await user.say("hi")
    await user.say("ready")
    for text in ("work, health and family", "nothing more", "yes"):
        await user.say(text)
    await user.say("one more thing")
    await user.say("yes")
    explain = await user.get(f"/api/workflows/{user.instance}/explain")
    assert await user.step() == "brain_dump", explain
    two = await user.say("milk; bread")
    assert "1 more" in two["reply"]["text"]
    done = await user.say("that's all")  # the agent knows 3 are needed and keeps asking
    assert done["turn"]["instance"]["current_step"] == "brain_dump"
    forced = await http.post(
        f"/api/workflows/{user.instance}/signal",
        json={"action": "complete_step"},
        headers=user.headers,
    )
    assert forced.json()["outcome"] == "blocked", forced.text
    assert "inbox_items: 2/3" in " ".join(forced.json()["missing_criteria"])
    assert await user.step() == "brain_dump"


async def test_the_conversation_comes_a_page_at_a_time_each_message_once(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # The whole chat in one reply passed NATS's 1 MiB after about 40 long messages, and GET
    # /messages answered 500 (found by a review of the gateway).
    user = User(http, "pager")
    await user.start()
    said = ["Hello there", "Tell me more", "And then?", "Hmm", "Okay"]
    for text in said:
        await user.say(text)
    path = f"/api/workflows/{user.instance}/messages"
    pages, after = [], 0
    while after is not None:
        page = await user.get(path, after_version=after, limit=2)
        pages.append(page["messages"])
        after = page["next_after_version"]
    assert [len(page) for page in pages] == [4, 4, 2]  # two exchanges a page, two messages each
    users = [m["text"] for page in pages for m in page if m["role"] == "user"]
    assert users == said
    assert (await user.get(path))["messages"] == [m for page in pages for m in page]
