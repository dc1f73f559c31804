"""The same item said twice, through the gateway with the scripted agents: kept once, the reply
says it is there already (kept for the brain dump, before it), the brain dump counts distinct
items; and a reminder's lead-in ("не забыть", "remember to") is no part of the item saved."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User, inbox


async def test_a_deferred_item_said_again_is_in_the_inbox_once_in_russian(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "катя")
    await user.start()
    await user.say("Привет")
    await user.say("Запиши в inbox: позвонить маме")  # off-topic at greeting: deferred
    assert (await user.say("Понял, поехали"))["progress"]["current_step"] == "discovery"
    again = await user.say("Запиши в inbox: Позвонить маме")  # said again at discovery
    # Kept for the brain dump, in no inbox yet: said so once, not "уже есть в inbox".
    assert again["reply"]["text"].startswith(
        "Это уже сохранено до выгрузки мыслей, второй раз не сохраняю; там это попадёт в inbox: "
        "Позвонить маме."
    )
    assert "уже есть в inbox" not in again["reply"]["text"]
    assert "Запишем это чуть позже" not in again["reply"]["text"]
    for text in ("Работа сейчас главное; здоровье тоже", "И семья", "да, верно", "Время"):
        await user.say(text)
    assert await user.step() == "brain_dump"
    assert await inbox(user) == ["позвонить маме"]

    first = await user.say("не забыть оплатить интернет\nкупить молоко, купить молоко")
    assert (
        "Записал в inbox: оплатить интернет; купить молоко. Всего записей: 3."
        in (first["reply"]["text"])
    )
    repeat = await user.say("Позвонить маме\nэто всё")
    assert (
        "Это уже есть в inbox, второй раз не записываю: Позвонить маме."
        in (repeat["reply"]["text"])
    )
    assert "Записал" not in repeat["reply"]["text"]
    assert sorted(await inbox(user)) == ["купить молоко", "оплатить интернет", "позвонить маме"]
    assert (await user.say("это всё"))["progress"]["current_step"] == "setup_complete"
    final = await user.say("спасибо")
    assert "мыслей в inbox: 3" in final["reply"]["text"]


async def test_a_repeat_does_not_count_toward_the_brain_dumps_three_items_in_english(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "bob")
    await user.start()
    await user.say("Hello there")
    await user.say("Got it, let's go")
    await user.say("Work and health matter most")
    await user.say("Also my hobbies")
    for text in ("yes", "yes", "yes, that's right"):
        await user.say(text)
    assert await user.step() == "brain_dump"
    await user.say("- remember to buy milk\n- bread")
    # The step's third message says "that's all" with two distinct items: it stays.
    await user.say("Buy milk!")
    early = await user.say("that's all")
    assert early["turn"]["instance"]["current_step"] == "brain_dump", early["turn"]
    assert "your inbox has 2 so far" in early["reply"]["text"]
    done = await user.say("don't forget to call the bank\nthat's all")
    assert done["progress"]["current_step"] == "setup_complete", done["turn"]
    assert sorted(await inbox(user)) == ["bread", "buy milk", "call the bank"]
