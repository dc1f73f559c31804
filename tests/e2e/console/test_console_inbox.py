"""The inbox and priorities panels: what the agents kept, shown as the onboarding goes."""

from __future__ import annotations

import asyncio
import re

from playwright.async_api import Route, expect

from .conftest import Console, Stack, body_of
from .test_console import SCRIPT

EMPTY_INBOX = "Your inbox is empty. What you ask the agents to note (your brain dump) lands here."
NO_PRIORITIES = "No priorities kept yet: tell the agents what matters most to you."


async def test_the_inbox_and_priorities_fill_in_as_the_onboarding_goes(console: Console) -> None:
    # The agent says "your inbox holds 3 items"; the page showed none of them.
    await console.open()
    await console.sign_in("ines")
    await console.start()
    inbox = console.page.locator("#inbox-items li")
    priorities = console.page.locator("#priorities li")
    await expect(console.page.locator("#inbox-status")).to_have_text(EMPTY_INBOX)
    await expect(console.page.locator("#inbox-status")).to_have_attribute("data-state", "empty")
    await expect(console.page.locator("#priorities-status")).to_have_text(NO_PRIORITIES)

    for text, step in SCRIPT:  # each turn's refresh reads both again: no reload, no click
        await console.say(text)
        await console.expect_step(step)
        if step == "brain_dump":
            await expect(priorities).not_to_have_count(0)
            await expect(console.page.locator("#priorities-status")).to_be_hidden()
    final = await console.say("thanks")
    assert "inbox items: 3" in final
    await expect(inbox).to_have_count(3)
    # A fact is kept per area: one sentence naming two areas is two facts, each under its area.
    areas = await priorities.locator(".area").all_inner_texts()
    assert len(areas) == len(set(areas)) == await priorities.count(), areas
    assert {"Work", "Health"} <= set(areas), areas
    texts = await inbox.locator(".text").all_inner_texts()
    assert sorted(texts) == ["bread", "call the bank", "milk"], texts
    await expect(inbox.first.locator(".meta")).to_contain_text("New · from onboarding · ")
    await expect(inbox.first.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-"))
    await expect(console.page.locator("#inbox-status")).to_be_hidden()

    await console.page.reload()  # read on sign-in (a kept one too), not only after a turn
    await expect(inbox).to_have_count(3)
    assert await inbox.locator(".text").all_inner_texts() == texts  # newest first, as the API


async def test_the_inbox_follows_an_onboarding_moved_on_elsewhere(
    console: Console, stack: Stack
) -> None:
    await console.open()
    await console.sign_in("iris")
    await console.start()
    await console.live()
    await expect(console.page.locator("#inbox-status")).to_have_text(EMPTY_INBOX)
    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.iris')")
    async with stack.api("iris") as api:  # the same user in another app: only live events here
        for index, (text, _) in enumerate(SCRIPT):
            body = {"text": text, "client_message_id": f"elsewhere-{index}"}
            body_of(await api.post(f"/api/workflows/{instance}/messages", json=body))
    await console.expect_step("setup_complete")
    await expect(console.page.locator("#inbox-items li")).to_have_count(3)
    await expect(console.page.locator("#priorities li")).not_to_have_count(0)


ITEM = {
    "item_id": "i1",
    "content": "<img src=x onerror=\"document.body.dataset.hacked='yes'\"> call <b>Bob</b>",
    "source": "onboarding",
    "status": "new",
    "created_at": "2026-01-02T03:04:05Z",
}


async def test_the_inbox_says_loading_and_failing_and_shows_text_as_text(
    console: Console,
) -> None:
    held, back = asyncio.Event(), asyncio.Event()

    async def inbox(route: Route) -> None:
        await held.wait()
        if not back.is_set():
            body = {"code": "unavailable", "message": "no responders on agent.query.inbox"}
            await route.fulfill(status=503, json={"error": {**body, "details": []}})
        else:
            await route.fulfill(status=200, json={"items": [ITEM]})

    await console.page.route("**/api/inbox", inbox)
    await console.open()
    await console.sign_in("ivo")
    await console.start()
    status = console.page.locator("#inbox-status")
    await expect(status).to_have_text("Loading your inbox…")
    await expect(status).to_have_attribute("data-state", "loading")
    held.set()
    await expect(status).to_have_text(
        "Your inbox could not be read: Baton is not answering right now (a service is busy or "
        "starting). Try again in a moment: nothing you typed is lost."
    )
    await expect(status).to_have_attribute("data-state", "error")
    await expect(console.page.get_by_role("alert")).to_be_hidden()  # the onboarding goes on

    back.set()
    await console.say("Hello there")  # the turn's refresh reads it again
    item = console.page.locator("#inbox-items li")
    await expect(item.locator(".text")).to_have_text(ITEM["content"])  # as text, never markup
    await expect(item.locator("img, b")).to_have_count(0)
    assert await console.page.evaluate("document.body.dataset.hacked") is None
    await expect(status).to_be_hidden()
