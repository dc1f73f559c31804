"""Scripted-agent turns whose outcome depends on what the workflow tells the agent-runner: the
step's message count and the conversation's language."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User


async def _at_brain_dump(user: User) -> None:
    await user.start()
    # Discovery needs five messages: the summary, two that confirm nothing, "да" too early
    # (the summary again), and the "да" that completes it.
    for text in ("Привет", "Понял, поехали", "Работа; здоровье; семья", "ну", "хм", "да", "да"):
        await user.say(text)
    assert await user.step() == "brain_dump"


async def test_the_third_item_and_that_is_all_in_one_message_complete_the_brain_dump(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "олег")
    await _at_brain_dump(user)
    await user.say("купить молоко")
    await user.say("позвонить маме")
    # The workflow's pre-check counted two items, before this message's third was saved.
    done = await user.say("сдать отчёт\nэто всё")
    assert done["progress"]["current_step"] == "setup_complete", done["reply"]["text"]
    inbox = [item["content"] for item in (await user.get("/api/inbox"))["items"]]
    assert sorted(inbox) == ["купить молоко", "позвонить маме", "сдать отчёт"]


async def test_that_is_all_with_the_third_item_waits_for_the_steps_third_message(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "инна")
    await _at_brain_dump(user)
    await user.say("купить молоко")
    early = await user.say("позвонить маме; сдать отчёт; это всё")  # 3 items, 2 messages of 3
    assert early["turn"]["instance"]["current_step"] == "brain_dump"
    assert (await user.say("это всё"))["progress"]["current_step"] == "setup_complete"


async def test_a_short_latin_reply_keeps_the_conversations_language(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "петя")
    await user.start()
    await user.say("Привет! Расскажи, что это")
    ok = await user.say("ok")
    assert ok["progress"]["current_step"] == "discovery"
    assert ok["reply"]["text"].startswith("Отлично, поехали!"), ok["reply"]["text"]
    noted = await user.say("work and health matter most")  # several English words: English
    assert noted["reply"]["text"].startswith("Noted."), noted["reply"]["text"]


async def test_a_listed_area_a_reminder_and_a_lettered_list_reach_memory_and_the_inbox(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "зоя")
    await user.start()
    await user.say("Привет")
    await user.say("Понял, поехали")
    reminder = await user.say("Напомни купить молоко")  # seed 000's "перескок", other words
    assert reminder["turn"]["instance"]["current_step"] == "discovery"
    summary = await user.say("Работа, здоровье и семья")
    assert "- работа: Работа\n- здоровье: здоровье\n- отношения: семья" in summary["reply"]["text"]
    facts = await user.get("/api/memory", category="priorities")
    assert sorted(fact["text"] for fact in facts["facts"]) == ["Работа", "здоровье", "семья"]
    for text in ("ну", "да", "да"):
        await user.say(text)
    assert await user.step() == "brain_dump"
    await user.say("a) хлеб b) яйца")
    await user.say("Подожди немного")
    done = await user.say("Больше ничего, кроме как сдать отчёт")
    assert done["progress"]["current_step"] == "setup_complete", done["reply"]["text"]
    inbox = [item["content"] for item in (await user.get("/api/inbox"))["items"]]
    assert sorted(inbox) == ["купить молоко", "сдать отчёт", "хлеб", "яйца"]
