"""Through the HTTP API: common words for a life area are heard (no loop asking for areas),
and a correction that names the area it takes back takes back that area alone."""

from __future__ import annotations

import httpx

from .conftest import Stack, User


async def _facts(user: User) -> dict[str, str]:
    found = (await user.get("/api/memory", category="priorities"))["facts"]
    return {fact["key"]: fact["text"] for fact in found}


async def _in_discovery(user: User, hello: str, ready: str) -> None:
    await user.start()
    await user.say(hello)
    assert (await user.say(ready))["progress"]["current_step"] == "discovery"


async def test_everyday_words_for_areas_are_saved_and_summed_up(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "everyday-words")
    await _in_discovery(user, "Привет", "Понял, поехали")
    said = await user.say("Внуки, дача и универ")
    assert "Вот что я понял" in said["reply"]["text"], said["reply"]
    assert await _facts(user) == {
        "relationships": "Внуки", "hobbies": "дача", "growth": "универ"
    }  # fmt: skip


async def test_a_correction_naming_the_area_it_takes_back_keeps_the_others(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "named-back")
    await _in_discovery(user, "Hello there", "Got it, let's go")
    said = await user.say("work and family. no wait, not family, health")
    assert await _facts(user) == {"work": "work", "health": "health"}
    asked = said["reply"]["text"]
    assert "growth, hobbies" in asked and "relationships" not in asked, asked
