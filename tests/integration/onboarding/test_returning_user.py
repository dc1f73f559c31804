"""What discovery makes of what a user said and of what memory kept: a self-correction
replaces what came before it, and facts from an earlier run of the onboarding (memory
outlives an instance) are shown as from last time, not as if said now."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User


async def _facts(user: User, category: str) -> dict[str, str]:
    found = (await user.get("/api/memory", category=category))["facts"]
    return {fact["key"]: fact["text"] for fact in found}


async def test_a_self_correction_to_what_matters_most_keeps_only_what_the_user_meant(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "corrector")
    await user.start()
    await user.say("Hello there")
    assert (await user.say("Got it, let's go"))["progress"]["current_step"] == "discovery"
    # A listing corrected on the way: health is taken back, not saved.
    listed = await user.say("work, health... no wait, work, family and hobbies")
    assert "here is what i understood" in listed["reply"]["text"].lower(), listed["reply"]
    assert set(await _facts(user, "priorities")) == {"work", "relationships", "hobbies"}
    await user.say("Also my health")
    asked = await user.say("yes")
    assert asked["reply"]["text"].endswith("Which of these matters most to you right now?")
    answered = await user.say("health i think... no wait, work")
    assert answered["reply"]["text"].endswith("time, energy, something else?"), answered
    assert (await _facts(user, "situation"))["focus"] == "work"  # the area once, not "work — work"
    # Taken back is not declined: the health fact stays.
    assert set(await _facts(user, "priorities")) == {"work", "health", "relationships", "hobbies"}


async def test_a_returning_users_facts_from_last_time_are_marked_in_the_summary(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "returning")
    await user.start()
    await user.say("Hello there")
    await user.say("Got it, let's go")
    await user.say("Work and health matter most")
    first = await user.say("Also my hobbies")
    assert "From last time" not in first["reply"]["text"], first["reply"]  # all said now
    for said in ("yes", "yes", "yes, that's right", "- milk\n- bread", "call the bank"):
        await user.say(said)
    await user.say("that's all")
    assert (await user.say("thanks"))["progress"]["status"] == "completed"

    await user.start()  # the onboarding again: memory has the three facts from the first
    await user.say("Hello again")
    assert (await user.say("Got it, let's go"))["progress"]["current_step"] == "discovery"
    summary = await user.say("Family matters to me too")
    assert summary["reply"]["text"] == (
        "Here is what I understood:\n"
        "- relationships: Family matters to me\n"
        "- From last time: work — Work and health matter most\n"
        "- From last time: health — Work and health matter most\n"
        "- From last time: hobbies — my hobbies\n"
        "Is that right? If not, correct me."
    ), summary["reply"]
    context = (await user.get(f"/api/workflows/{user.instance}"))["context"]
    assert context["step_data"]["discovery"]["facts_told"] == ["relationships"]
    # Told again in this run, a fact is no longer from last time.
    again = await user.say("Работа — это мой новый проект")
    assert "- работа: мой новый проект\n" in again["reply"]["text"], again["reply"]
    assert "- С прошлого раза: здоровье — Work and health matter most\n" in again["reply"]["text"]
    assert "С прошлого раза: работа" not in again["reply"]["text"]


async def test_discoverys_so_far_line_marks_the_areas_it_has_from_last_time(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "returning-too-few")
    await user.start()
    await user.say("Hello there")
    await user.say("Got it, let's go")
    await user.say("Work and health matter most")
    await user.say("Also my hobbies")
    for said in ("yes", "yes", "yes, that's right", "- milk\n- bread", "call the bank"):
        await user.say(said)
    await user.say("that's all")
    assert (await user.say("thanks"))["progress"]["status"] == "completed"

    await user.start()  # the onboarding again: memory has work, health and hobbies
    await user.say("Hello again")
    assert (await user.say("Got it, let's go"))["progress"]["current_step"] == "discovery"
    dropped = await user.say("No hobbies for me anymore")
    # "So far I have work, health." listed them as if said in this conversation.
    assert dropped["reply"]["text"].startswith(
        "Removed: hobbies.\nFrom last time: work, health. To set up your priorities"
    ), dropped["reply"]
    await user.say("Work is my new project")  # told again in this run
    nope = await user.say("nope")
    assert nope["reply"]["text"].startswith("So far I have work. From last time: health. "), nope
