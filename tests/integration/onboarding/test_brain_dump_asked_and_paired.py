"""The brain dump through the gateway with the scripted agents, as real-user probes found it:
a question to the assistant is answered and saved as no item, two tasks joined by "and" are
two items, not one, and a reminder asked for politely saves the task alone."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User, inbox
from .test_brain_dump_second_thoughts import _at_brain_dump


async def test_two_tasks_joined_by_and_are_two_items(stack: Stack, http: httpx.AsyncClient) -> None:
    # "I need to fix the sink and pay rent" was saved as one item.
    user = User(http, "sam")
    await _at_brain_dump(user)
    said = (await user.say("I need to fix the sink and pay rent"))["reply"]["text"]
    assert "Saved to your inbox: fix the sink; pay rent." in said, said
    await user.say("buy bread and butter\nresearch and summarize the report")
    assert sorted(await inbox(user)) == [
        "buy bread and butter", "fix the sink", "pay rent", "research and summarize the report"
    ]  # fmt: skip


async def test_two_tasks_joined_by_and_in_russian(stack: Stack, http: httpx.AsyncClient) -> None:
    user = User(http, "лев")
    await _at_brain_dump(user, english=False)
    await user.say("починить кран и заплатить за квартиру\nкупить хлеб и молоко")
    assert sorted(await inbox(user)) == [
        "заплатить за квартиру", "купить хлеб и молоко", "починить кран"
    ]  # fmt: skip


async def test_a_question_to_the_assistant_is_answered_and_no_item(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # "can I change items later" and "who will see this" were saved into the inbox as tasks.
    user = User(http, "zoe")
    await _at_brain_dump(user)
    await user.say("figure out how to fix the sink")
    later = (await user.say("can I change items later"))["reply"]["text"]
    assert "Saved to your inbox" not in later and "I need at least 2 more." in later, later
    seen = (await user.say("who will see this"))["reply"]["text"]
    assert seen.startswith("What you tell me is kept in your own memory and inbox"), seen
    both = (await user.say("how does this work? also buy milk"))["reply"]["text"]
    assert both.startswith("Saved to your inbox: buy milk. Items so far: 2."), both
    assert "Everything you write here I save to your inbox" in both, both
    assert sorted(await inbox(user)) == ["buy milk", "figure out how to fix the sink"]


async def test_a_question_to_the_assistant_in_russian(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "ира")
    await _at_brain_dump(user, english=False)
    await user.say("выяснить, как работает налоговый вычет")
    asked = (await user.say("а можно потом поменять"))["reply"]["text"]
    assert "Записал в inbox" not in asked and "Нужно ещё хотя бы 2 записи." in asked, asked
    await user.say("а что будет дальше?")
    assert await inbox(user) == ["выяснить, как работает налоговый вычет"]


async def test_a_polite_reminder_request_saves_the_task_alone(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # "can you remind me to call mom" saved "can you" and "call mom"; "купить хлеб, можешь
    # напомнить ..." saved nothing.
    user = User(http, "ada")
    await _at_brain_dump(user)
    said = (await user.say("can you remind me to call mom?"))["reply"]["text"]
    assert said.startswith("Saved to your inbox: call mom. Items so far: 1."), said
    assert "Everything you write here I save to your inbox" not in said, said
    await user.say("please remind me to pay rent")
    assert sorted(await inbox(user)) == ["call mom", "pay rent"]
    ru = User(http, "ян")
    await _at_brain_dump(ru, english=False)
    await ru.say("купить хлеб, можешь напомнить позвонить маме?")
    assert sorted(await inbox(ru)) == ["купить хлеб", "позвонить маме"]
