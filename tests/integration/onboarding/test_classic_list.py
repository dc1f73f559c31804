"""The classic onboarding over HTTP: the brain dump's list becomes the user's inbox, once."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import nats
import pytest

from baton_agent_runner.service.widget_lists import WidgetLists
from baton_contracts import STREAMS
from baton_contracts.workflow import WidgetCompleted

from .conftest import Stack, User, inbox

FILL_IN = {
    "en": "This step closes with your list: fill it in",
    "ru": "Этот шаг закрывается списком: заполни его",
}


async def at_brain_dump(user: User, english: bool = True) -> None:
    await user.start("onboarding-classic")
    said = ("hi", "got it", "work; health; family", "yes")
    if not english:
        said = ("Привет", "Понял, поехали", "Работа; здоровье; семья", "да")
    for text in said:
        await user.say(text)
    assert await user.step() == "brain_dump"


async def send_list(user: User, command_id: str, *items: str) -> dict[str, Any]:
    widget = {"type": "list_input", "completed": True, "items": list(items)}
    body = {"action": "complete_step", "command_id": command_id, "data": {"widget": widget}}
    response = await user.http.post(
        f"/api/workflows/{user.instance}/signal", json=body, headers=user.headers
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def inbox_of(user: User, count: int) -> list[dict[str, Any]]:
    """The user's inbox items once it holds `count` (the list lands a moment after the step
    closes), and as it stays half a second later."""
    for _ in range(100):
        if len(await inbox(user)) >= count:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)  # anything doubled would have landed by now
    return (await user.get("/api/inbox"))["items"]  # type: ignore[no-any-return]


async def deliver_again(stack: Stack, user: User) -> None:
    """The workflow's announcement of the user's list, stored in the stream once more (as a
    republish after JetStream's duplicate window), so the agent-runner gets it a second time."""
    stream = next(s.name for s in STREAMS if WidgetCompleted.subject.pattern in s.subjects)
    subject = f"workflow.evt.widget_completed.{user.name}.{user.instance}"
    nc = await nats.connect(stack.nats_url)
    try:
        js = nc.jetstream()
        stored = await js.get_last_msg(stream, subject)
        assert stored.data is not None
        event = WidgetCompleted.model_validate_json(stored.data)
        await js.publish(subject, stored.data, headers={"Nats-Msg-Id": f"{event.event_id}-2"})
    finally:
        await nc.close()


async def test_a_classic_onboarding_puts_the_completed_list_in_the_inbox_once(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "klara")
    await at_brain_dump(user)
    # Done before the step's one message: refused, and that list is not the one that counts.
    early = await send_list(user, "list-1", "taxes")
    assert early["outcome"] == "blocked", early
    asked = await user.say("ok")
    assert FILL_IN["en"] in asked["reply"]["text"], asked["reply"]
    assert "more" not in asked["reply"]["text"], asked["reply"]

    done = await send_list(user, "list-2", "buy milk", " call mom ", "")
    assert (done["outcome"], done["instance"]["current_step"]) == ("transitioned", "completed")
    again = await send_list(user, "list-2", "buy milk", " call mom ", "")  # a client's retry
    assert again["outcome"] == "transitioned", again
    await deliver_again(stack, user)

    items = await inbox_of(user, 2)
    assert sorted(item["content"] for item in items) == ["buy milk", "call mom"]
    assert {(item["source"], item["status"]) for item in items} == {("onboarding", "new")}
    assert all(item["created_at"] for item in items)

    final = await user.say("thanks")
    assert "inbox items: 2" in final["reply"]["text"], final["reply"]
    assert final["progress"]["status"] == "completed"
    assert len(await inbox(user)) == 2


async def test_a_list_completed_while_the_agent_runner_is_down_reaches_the_inbox_when_it_is_back(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "павел")
    await at_brain_dump(user, english=False)
    asked = await user.say("хорошо")
    assert FILL_IN["ru"] in asked["reply"]["text"], asked["reply"]

    await stack.stop_agent_runner()
    done = await send_list(user, "list-1", "купить молоко", "позвонить маме")
    assert done["instance"]["current_step"] == "completed", done  # the list needs no agent
    down = await http.get("/api/inbox", headers=user.headers)
    assert down.status_code == 503, down.text

    await stack.start_agent_runner()
    items = await inbox_of(user, 2)
    assert sorted(item["content"] for item in items) == ["купить молоко", "позвонить маме"]
    final = await user.say("спасибо")
    assert "мыслей в inbox: 2" in final["reply"]["text"], final["reply"]


async def test_an_item_typed_in_the_chat_and_listed_too_is_in_the_inbox_once(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "ilse")
    await at_brain_dump(user)
    typed = await user.say("Buy milk")
    assert "Saved to your inbox: Buy milk." in typed["reply"]["text"], typed["reply"]
    done = await send_list(user, "list-1", "buy  milk", "call mom")
    assert done["instance"]["current_step"] == "completed", done
    items = await inbox_of(user, 2)
    assert sorted(item["content"] for item in items) == ["Buy milk", "call mom"]
    final = await user.say("thanks")
    assert "inbox items: 2" in final["reply"]["text"], final["reply"]


async def test_that_s_all_closes_the_brain_dump_once_its_list_is_in(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "томас")
    await at_brain_dump(user, english=False)
    # Done pressed before the step's first message: refused, and the list stays in the step.
    early = await send_list(user, "list-1", "купить молоко", "позвонить маме")
    assert early["outcome"] == "blocked", early
    # "Это всё" was answered "fill in the list and press Done", the list being there already.
    done = await user.say("это всё")
    assert "список принят" in done["reply"]["text"], done["reply"]
    assert await user.step() == "completed"
    items = await inbox_of(user, 2)
    assert sorted(item["content"] for item in items) == ["купить молоко", "позвонить маме"]


async def test_the_count_after_the_list_includes_it_while_its_announcement_is_still_on_the_way(
    stack: Stack, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agent-runner's consumer of `workflow.widget_completed` is held, as a busy or slow one
    # is: the coordinator's turn comes first and must still count the list's items.
    let_through, consumed = asyncio.Event(), asyncio.Event()
    save = WidgetLists.completed

    async def held(lists: WidgetLists, event: WidgetCompleted) -> int:
        await let_through.wait()
        saved = await save(lists, event)
        consumed.set()
        return saved

    monkeypatch.setattr(WidgetLists, "completed", held)
    user = User(http, "mira")
    await at_brain_dump(user)
    await user.say("ok")
    done = await send_list(user, "list-1", "buy milk", "call mom", "pay rent")
    assert done["instance"]["current_step"] == "completed", done

    final = await user.say("thanks")
    assert "inbox items: 3" in final["reply"]["text"], final["reply"]
    assert sorted(await inbox(user)) == ["buy milk", "call mom", "pay rent"]

    let_through.set()  # the announcement arrives after all: nothing is saved twice
    await consumed.wait()
    assert sorted(await inbox(user)) == ["buy milk", "call mom", "pay rent"]
