"""The brain dump through the gateway with the scripted agents, as real-user probes found it:
two tasks joined by "and" are two items, not one."""

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
