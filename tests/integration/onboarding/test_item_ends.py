"""What an inbox item is saved as through the gateway with the scripted agents: without the
"!", "?" or "…" that ends its sentence, and with no stop doubled in the reply; a reminder's
lead-in said alone ("не забыть") is none, and the agent asks what to remember."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User, inbox


async def to_the_brain_dump(user: User, *, at_greeting: str = "Расскажи подробнее") -> None:
    await user.start()
    for text in ("Привет", at_greeting, "Понял, поехали"):
        await user.say(text)
    assert await user.step() == "discovery"
    for text in ("Работа сейчас главное; здоровье тоже", "И семья", "Работа", "да, верно"):
        await user.say(text)
    said = await user.say("Время")
    assert await user.step() == "brain_dump", said["reply"]["text"]


async def test_an_item_said_with_a_stop_is_saved_and_confirmed_without_it(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "катя")
    await to_the_brain_dump(user)
    said = await user.say("позвонить маме!\nlearn C++!\nкупить хлеб (белый)…")
    reply = said["reply"]["text"]
    assert "Записал в inbox: позвонить маме; learn C++; купить хлеб (белый). Всего" in reply
    assert "!." not in reply and "…." not in reply
    assert sorted(await inbox(user)) == ["learn C++", "купить хлеб (белый)", "позвонить маме"]
    again = await user.say("Позвонить маме!!")
    assert "второй раз не записываю: Позвонить маме.\n" in again["reply"]["text"]


async def test_a_reminders_lead_in_alone_is_no_item_and_the_agent_asks_what_to_remember(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "лена")
    await to_the_brain_dump(user, at_greeting="Запиши в inbox: не забыть")
    assert await inbox(user) == []  # nothing was kept for the brain dump either
    asked = await user.say("не забыть")
    assert asked["reply"]["text"].startswith("Что именно не забыть? Напиши само дело")
    assert await inbox(user) == []
    said = await user.say("не забудь!\nне забыть оплатить интернет\nпозвонить маме")
    assert (
        "Записал в inbox: оплатить интернет; позвонить маме. Всего записей: 2."
        in (said["reply"]["text"])
    )
    early = await user.say("это всё")  # two items: the lead-ins counted toward none of three
    assert early["turn"]["instance"]["current_step"] == "brain_dump", early["turn"]
    assert sorted(await inbox(user)) == ["оплатить интернет", "позвонить маме"]
