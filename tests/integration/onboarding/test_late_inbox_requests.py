"""An inbox request made when no inbox step lies ahead lands in the inbox at once, and the
reply says so: kept as deferred, nothing would ever move it to the inbox."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Stack, User, definitions_with, inbox

PRIORITIES_ONLY = """\
id: priorities
title: Priorities
steps:
  - id: greeting
    title: Greeting
    agent_slug: greeter
    min_messages: 1
    max_messages: 10
    completion_criteria: [{checker: agent_signal}]
    next_step: discovery
  - id: discovery
    title: Discovery
    agent_slug: discovery
    min_messages: 1
    max_messages: 30
    completion_criteria: [{checker: agent_signal}]
"""


@pytest.fixture
def workflow_extra(tmp_path: Path) -> dict[str, Any]:
    """The shipped definitions and one without an inbox step."""
    return definitions_with(tmp_path / "definitions", "priorities.yaml", PRIORITIES_ONLY)


async def _at_setup_complete(user: User, english: bool = False) -> None:
    await user.start()
    greeting = ("Hello", "got it") if english else ("Привет", "Понял, поехали")
    discovery = ("work; health; family", "hm", "well", "yes", "yes")
    if not english:
        discovery = ("Работа; здоровье; семья", "ну", "хм", "да", "да")
    dump = ("milk", "bread", "eggs\nthat's all")
    if not english:
        dump = ("купить хлеб", "позвонить маме", "сдать отчёт\nэто всё")
    said = (*greeting, *discovery, *dump)
    for text in said:
        await user.say(text)
    assert await user.step() == "setup_complete"


async def test_an_inbox_request_at_setup_complete_lands_in_the_inbox_in_russian(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "вера")
    await _at_setup_complete(user)
    final = await user.say("Запиши в inbox: купить молоко")
    assert "купить молоко" in await inbox(user)
    text = final["reply"]["text"]
    assert "Записал в inbox: купить молоко" in text and "позже" not in text, text
    assert "inbox: 4" in text, text  # the summary counts it
    assert final["progress"]["status"] == "completed"


async def test_an_inbox_request_at_setup_complete_lands_in_the_inbox_in_english(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "vera")
    await _at_setup_complete(user, english=True)
    final = await user.say("add to my inbox: buy milk")
    assert "buy milk" in await inbox(user)
    text = final["reply"]["text"]
    assert "Saved to your inbox: buy milk" in text and "later" not in text, text
    assert "inbox items: 4" in text, text


async def test_an_inbox_request_after_the_classic_brain_dump_lands_in_the_inbox(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "classic")
    await user.start("onboarding-classic")
    for text in ("hi", "got it", "work; health; family", "yes"):
        await user.say(text)
    assert await user.step() == "brain_dump"
    await user.say("taxes")
    widget = {"widget": {"type": "list_input", "completed": True, "items": ["taxes"]}}
    done = await http.post(
        f"/api/workflows/{user.instance}/signal",
        json={"action": "complete_step", "data": widget},
        headers=user.headers,
    )
    assert done.status_code == 200, done.text
    assert await user.step() == "completed", done.text
    final = await user.say("add to my inbox: buy milk")
    assert "buy milk" in await inbox(user)
    assert "Saved to your inbox: buy milk" in final["reply"]["text"]


async def test_an_inbox_request_in_a_workflow_without_an_inbox_step_lands_at_once(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "no-inbox-step")
    await user.start("priorities")
    await user.say("Понял, поехали")
    assert await user.step() == "discovery"
    off = await user.say("Запиши в inbox: купить молоко")
    assert off["turn"]["instance"]["current_step"] == "discovery"  # the step continues
    assert await inbox(user) == ["купить молоко"]
    text = off["reply"]["text"]
    assert "купить молоко" in text and "позже" not in text and "приоритет" in text, text
