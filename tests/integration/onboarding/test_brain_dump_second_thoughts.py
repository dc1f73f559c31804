"""The brain dump through the gateway with the scripted agents, as a probe of the running
platform found it: a correction changes the item it corrects, "already done" takes one out,
removing one task keeps the task it was said with, and a paragraph of tasks is an item per
task. Each was saved as said, or lost a neighbour."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from .conftest import Stack, User, inbox


async def _at_brain_dump(user: User, english: bool = True) -> None:
    await user.start()
    said = ("Hello there", "Got it, let's go", "Work and health matter most", "Also my hobbies")
    if not english:
        said = ("Привет", "Понял, поехали", "Работа сейчас главное; здоровье тоже", "И семья")
    for text in said:
        await user.say(text)
    for text in ("yes", "yes", "yes, that's right") if english else ("да", "да", "да, верно"):
        await user.say(text)
    assert await user.step() == "brain_dump"


async def test_a_correction_changes_the_item_and_already_done_takes_one_out(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "mia")
    await _at_brain_dump(user)
    await user.say("buy milk\nbuy a birthday gift for Jake\nrenew passport")
    changed = await user.say("no wait not milk, oat milk")
    assert "Changed: buy milk → buy oat milk." in changed["reply"]["text"]
    assert "Saved to your inbox: no wait" not in changed["reply"]["text"]
    fixed = await user.say("no wait the gift is for Jack not Jake")
    assert (
        "Changed: buy a birthday gift for Jake → buy a birthday gift for Jack."
        in (fixed["reply"]["text"])
    )
    done = await user.say("no wait cancel #3 i already did it")
    assert "Removed from your inbox: renew passport." in done["reply"]["text"]
    assert sorted(await inbox(user)) == ["buy a birthday gift for Jack", "buy oat milk"]


async def test_a_correction_and_already_done_in_russian(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "оля")
    await _at_brain_dump(user, english=False)
    await user.say("купить молоко\nкупить подарок маме\nоплатить интернет")
    changed = await user.say("не, не молоко, а кефир")
    assert "Исправил: купить молоко → купить кефир." in changed["reply"]["text"]
    done = await user.say("ой нет, подарок уже купила")
    assert "Убрал из inbox: купить подарок маме." in done["reply"]["text"]
    assert sorted(await inbox(user)) == ["купить кефир", "оплатить интернет"]


async def test_removing_one_task_keeps_the_one_said_with_it(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "noah")
    await _at_brain_dump(user)
    await user.say(
        "remember to renew passport, don't forget to call grandma and also buy dog food\n"
        "buy salt and pepper"
    )
    assert sorted(await inbox(user)) == [
        "buy dog food", "buy salt and pepper", "call grandma", "renew passport"
    ]  # fmt: skip
    removed = await user.say("remove buy dog food, already got it")
    assert "Removed from your inbox: buy dog food." in removed["reply"]["text"]
    part = await user.say("remove pepper")
    assert 'Took "pepper" out of that item; it now reads: buy salt.' in (part["reply"]["text"])
    assert sorted(await inbox(user)) == ["buy salt", "call grandma", "renew passport"]


async def test_a_paragraph_of_tasks_is_an_item_per_task(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "ava")
    await _at_brain_dump(user)
    reply = await user.say(
        "ok so: remember to email Sarah about the Q3 roadmap, need to renew my car insurance "
        "before the 15th, buy a birthday gift for Jake. oh and I keep meaning to start "
        "meditating. and remember to email Sarah"
    )
    assert (
        "Saved to your inbox: email Sarah about the Q3 roadmap; renew my car insurance "
        in (reply["reply"]["text"])
    )
    assert sorted(await inbox(user)) == [
        "I keep meaning to start meditating", "buy a birthday gift for Jake",
        "email Sarah about the Q3 roadmap", "renew my car insurance before the 15th",
    ]  # fmt: skip
    more = await user.say("need to renew passport. also dentist")
    assert "Saved to your inbox: renew passport; dentist." in more["reply"]["text"]
    done = await user.say("that's all")
    assert done["progress"]["current_step"] == "setup_complete", done["turn"]
    assert len(await inbox(user)) == 6


async def test_a_removal_of_nothing_saved_leaves_the_count_as_it_was(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    # With two items saved, "remove oat milk" (gone already) was answered "There is no "oat
    # milk" in your inbox ... I need at least 2 more.": one fewer counted than the inbox held.
    user = User(http, "ada")
    await _at_brain_dump(user)
    await user.say("buy oat milk\ncall mom\npay rent")
    removed = await user.say("remove oat milk")
    assert "Removed from your inbox: buy oat milk." in removed["reply"]["text"]
    assert "I need at least 1 more." in removed["reply"]["text"], removed["reply"]["text"]
    again = (await user.say("remove oat milk"))["reply"]["text"]
    assert 'There is no "oat milk" in your inbox, so nothing was removed.' in again, again
    assert "I need at least 1 more." in again, again
    assert sorted(await inbox(user)) == ["call mom", "pay rent"]


async def test_a_correction_said_as_what_was_meant_or_a_change_replaces_the_item(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "ivy")
    await _at_brain_dump(user)
    await user.say("buy milk, call the bank, book the dentist")
    meant = await user.say("I meant bread")
    assert "Changed: buy milk → buy bread." in meant["reply"]["text"]
    assert "Saved to your inbox" not in meant["reply"]["text"]
    changed = await user.say("change bread to oat milk")
    assert "Changed: buy bread → buy oat milk." in changed["reply"]["text"]
    assert sorted(await inbox(user)) == ["book the dentist", "buy oat milk", "call the bank"]


async def test_a_correction_said_as_what_was_meant_or_a_change_in_russian(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "ира")
    await _at_brain_dump(user, english=False)
    await user.say("купить молоко, позвонить в банк, записаться к стоматологу")
    meant = await user.say("я имела в виду хлеб")
    assert "Исправил: купить молоко → купить хлеб." in meant["reply"]["text"]
    assert "Записал" not in meant["reply"]["text"]
    changed = await user.say("замени хлеб на кефир")
    assert "Исправил: купить хлеб → купить кефир." in changed["reply"]["text"]
    assert sorted(await inbox(user)) == [
        "записаться к стоматологу", "купить кефир", "позвонить в банк"
    ]  # fmt: skip
