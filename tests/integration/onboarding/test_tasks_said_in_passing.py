"""A task said in passing at the greeting or discovery ("hi, remember to call mom btw", "oh
and fix the bike too", "can you remind me tomorrow to call the vet?") reaches the inbox as the
brain dump starts, as a probe of the running platform found it did not: each got the step's
reply ("I did not quite get that.") and was lost. Area talk stays discovery's."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User, inbox


async def test_tasks_said_in_passing_reach_the_inbox_at_the_brain_dump(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "probe")
    await user.start()
    hello = (await user.say("hi, remember to call mom btw"))["reply"]["text"]
    assert hello.startswith("Kept for the brain dump, where it goes into your inbox: call mom."), (
        hello
    )
    assert hello.endswith("Ready to start?"), hello
    await user.say("ok let's go")
    await user.say("work and health")
    bike = (await user.say("oh and fix the bike too 🚲"))["reply"]["text"]
    assert bike.startswith(
        "Kept for the brain dump, where it goes into your inbox: fix the bike."
    ), bike
    vet = (await user.say("wait can you remind me tomorrow to call the vet?"))["reply"]["text"]
    assert "inbox: call the vet tomorrow." in vet and "did not quite get" not in vet, vet
    family = (await user.say("I need more time with family"))["reply"]["text"]
    assert "- relationships: I need more time with family" in family, family
    # A list said at the summary was answered "I did not quite get that ...".
    listed = (await user.say("I need to pay rent and also fix the sink"))["reply"]["text"]
    assert "brain dump: pay rent; fix the sink." in listed and "did not quite" not in listed
    facts = (await user.get("/api/memory", category="priorities"))["facts"]
    assert sorted(fact["key"] for fact in facts) == ["health", "relationships", "work"]
    for text in ("yes", "yes", "yes", "yes"):
        if await user.step() == "discovery":
            await user.say(text)
    assert await user.step() == "brain_dump"
    await user.say("ready")
    kept = ["call mom", "call the vet tomorrow", "fix the bike", "fix the sink", "pay rent"]
    assert sorted(await inbox(user)) == kept


async def test_a_task_said_in_passing_in_russian_and_area_talk_is_no_task(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "вера")
    await user.start()
    await user.say("Привет")
    await user.say("Понял, поехали")
    await user.say("Работа и здоровье")
    sleep = (await user.say("надо больше спать"))["reply"]["text"]
    assert "inbox" not in sleep, sleep
    said = (await user.say("И семья. Не забыть оплатить интернет!"))["reply"]["text"]
    assert said.startswith("Сохранил до выгрузки мыслей, там это попадёт в inbox: оплатить"), said
    assert "Вот что я понял" in said, said
    for text in ("да", "да", "да", "да"):
        if await user.step() == "discovery":
            await user.say(text)
    assert await user.step() == "brain_dump"
    await user.say("готов")
    assert await inbox(user) == ["оплатить интернет"]
