"""Priorities named during the greeting are kept for discovery (seed 000's "перескок"):
the greeting goes on, the facts are saved, and discovery asks only for what is still untold."""

from __future__ import annotations

import httpx

from .conftest import Stack, User


async def test_priorities_said_in_the_greeting_are_discoverys_facts(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "early")
    await user.start()
    early = await user.say("Привет! Для меня важнее всего работа и здоровье")
    assert early["turn"]["outcome"] == "stayed"
    assert early["turn"]["instance"]["current_step"] == "greeting"
    assert "следующем шаге" in early["reply"]["text"]
    facts = (await user.get("/api/memory", category="priorities"))["facts"]
    assert sorted(fact["key"] for fact in facts) == ["health", "work"]

    ready = await user.say("Понял, поехали")
    assert ready["progress"]["current_step"] == "discovery"
    asked = await user.say("Ещё семья")  # the third area: discovery sums the three up
    assert "Вот что я понял" in asked["reply"]["text"]
    assert len((await user.get("/api/memory", category="priorities"))["facts"]) == 3
