"""A deferred inbox request reaches the inbox even when the inbox step never starts: it is
skipped (an optional brain dump, a signal naming a later step), and the instance ends."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Stack, User, definitions_with, inbox

OPTIONAL_DUMP = """\
id: optional-dump
title: Onboarding with an optional brain dump
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
    next_step: brain_dump
  - id: brain_dump
    title: Brain dump
    agent_slug: inbox_collector
    is_required: false
    min_messages: 1
    max_messages: 20
    completion_criteria: [{checker: agent_signal}]
    next_step: setup_complete
  - id: setup_complete
    title: Setup complete
    agent_slug: coordinator
    min_messages: 0
    max_messages: 1
    completion_criteria: [{checker: agent_signal}]
"""


@pytest.fixture
def workflow_extra(tmp_path: Path) -> dict[str, Any]:
    """The shipped definitions and one whose brain dump may be skipped."""
    return definitions_with(tmp_path / "definitions", "optional-dump.yaml", OPTIONAL_DUMP)


async def inbox_soon(user: User) -> list[str]:
    """The user's inbox once it has something (the agent-runner reacts to an event)."""
    for _ in range(100):
        if found := await inbox(user):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"{user.name}'s inbox stayed empty for 5 s")


async def signal(user: User, **body: Any) -> dict[str, Any]:
    response = await user.http.post(
        f"/api/workflows/{user.instance}/signal", json=body, headers=user.headers
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def _deferred_at_discovery(user: User) -> None:
    await user.start("optional-dump")
    await user.say("Понял, поехали")
    assert await user.step() == "discovery"
    off = await user.say("Запиши в inbox: купить молоко")
    assert "позже" in off["reply"]["text"], off  # kept for the brain dump ahead
    assert await inbox(user) == []


async def test_a_deferred_item_lands_in_the_inbox_when_the_instance_completes_past_its_skipped_brain_dump(  # noqa: E501
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "skip-and-end")
    await _deferred_at_discovery(user)
    await signal(user, action="complete_step", target_step="setup_complete")
    assert await user.step() == "setup_complete"
    await signal(user, action="complete_step")
    assert (await user.get(f"/api/workflows/{user.instance}"))["status"] == "completed"
    assert await inbox_soon(user) == ["купить молоко"]


async def test_the_first_turn_past_a_skipped_brain_dump_moves_the_deferred_item_and_says_so(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "skip-and-talk")
    await _deferred_at_discovery(user)
    await signal(user, action="complete_step", target_step="setup_complete")
    assert await user.step() == "setup_complete"
    final = await user.say("Спасибо")
    text = final["reply"]["text"]
    # Told in the reply that moved it, and counted in the summary before the instance ended.
    assert "купить молоко" in text and "позже" not in text, text
    assert "inbox: 1" in text, text
    assert await inbox(user) == ["купить молоко"]
    assert final["progress"]["status"] == "completed"
