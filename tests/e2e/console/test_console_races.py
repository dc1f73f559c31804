"""Answers that come in after a newer one, or after the workspace they were asked for is gone.

Each test holds one answer at the browser (the gateway has already answered it: the page hears
of it later), lets the page move on, then lets the old answer in and checks that it changed
nothing: a panel shows the newest answer asked for the instance on screen, and nothing else.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Route, expect

from .conftest import Console, Stack, body_of

ROOM_MS = 1000  # room for a released answer to (wrongly) land


class HeldAnswer:
    """Holds the next `method` request's answer, fetched at once, until `release()`."""

    def __init__(self, method: str = "GET") -> None:
        self.method = method
        self.armed = True
        self.fetched = asyncio.Event()
        self.go = asyncio.Event()

    async def route(self, route: Route) -> None:
        if not self.armed or route.request.method != self.method:
            await route.continue_()
            return
        self.armed = False
        answer = await route.fetch()  # the state at the time it was asked
        self.fetched.set()
        await self.go.wait()
        await route.fulfill(response=answer)

    def release(self) -> None:
        self.go.set()


WATCH = """id => { window.painted = [];
    new MutationObserver(() => window.painted.push(document.getElementById(id).innerText))
        .observe(document.getElementById(id), {childList: true, subtree: true}); }"""


async def painted_after(console: Console, panel: str, held: HeldAnswer) -> list[str]:
    """Every text `panel` showed from `held`'s release on, even for a moment: a later reload
    may paint over a stale answer, which is still one the person saw."""
    await console.page.evaluate(WATCH, panel)
    held.release()
    await console.page.wait_for_timeout(ROOM_MS)
    painted: list[str] = await console.page.evaluate("window.painted")
    return painted


async def check_again(console: Console) -> None:
    await console.page.get_by_role("button", name="Check again").click()


async def test_a_check_that_answers_late_does_not_replace_a_newer_answer(
    console: Console,
) -> None:
    await console.open()
    await console.sign_in("vera")
    await console.start()
    await console.live()
    explain = console.page.locator("#explain")
    await expect(explain).to_contain_text("0 messages so far")
    held = HeldAnswer()
    await console.page.route("**/explain", held.route)
    await check_again(console)
    await held.fetched.wait()  # "0 messages", on its way

    await console.say("Hello there")  # the explain fetched after the live events says 1
    await expect(explain).to_contain_text("1 message so far")
    await check_again(console)  # and so does a newer check
    await expect(explain).to_contain_text("1 message so far")

    assert not [
        text for text in await painted_after(console, "explain", held) if ": 0 messages" in text
    ]
    await expect(explain).to_contain_text("1 message so far")


async def test_a_check_asked_before_sign_out_stays_out_of_the_next_workspace(
    console: Console,
) -> None:
    await console.open()
    await console.sign_in("wes")
    await console.start()
    await console.say("Hello there")
    explain = console.page.locator("#explain")
    await expect(explain).to_contain_text("1 message so far")
    held = HeldAnswer()
    await console.page.route("**/explain", held.route)
    await check_again(console)
    await held.fetched.wait()  # wes's instance: 1 message

    await console.page.get_by_role("button", name="Sign out").click()
    await console.sign_in("xena")
    await console.start()
    await console.live()
    await expect(explain).to_contain_text("0 messages so far")

    assert not [
        text for text in await painted_after(console, "explain", held) if ": 1 message " in text
    ]
    await expect(explain).to_contain_text("0 messages so far")
    await expect(console.page.get_by_role("alert")).to_be_hidden()


async def test_a_reload_that_answers_after_sign_out_shows_nothing(console: Console) -> None:
    await console.open()
    await console.sign_in("yuri")
    await console.start()
    await console.live()
    held = HeldAnswer()
    await console.page.route("**/progress", held.route)
    await console.say("Hello there")  # the live events that follow ask for a reload
    await held.fetched.wait()

    await console.page.get_by_role("button", name="Sign out").click()
    held.release()
    await console.page.wait_for_timeout(ROOM_MS)
    await expect(console.page.get_by_role("alert")).to_be_hidden()  # no error for a page left
    await expect(console.page.get_by_label("Your name")).to_be_focused()
    await console.sign_in("yuri")  # and signing in again finds the onboarding as it is
    await console.expect_step("greeting")
    await expect(console.page.locator("#explain")).to_contain_text("1 message so far")


async def test_a_reload_begun_before_a_turn_does_not_put_the_old_step_back(
    console: Console, stack: Stack
) -> None:
    await console.page.clock.install()  # runs as usual until paused below
    await console.open()
    await console.sign_in("zack")
    await console.start()
    await console.live()
    await console.say("Hello there")
    await expect(console.page.locator("#explain")).to_contain_text("1 message so far")
    held = HeldAnswer()
    await console.page.route("**/progress", held.route)
    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.zack')")
    async with stack.api("zack") as api:  # a refused move elsewhere: the page reloads
        body_of(
            await api.post(f"/api/workflows/{instance}/signal", json={"action": "complete_step"})
        )
    await held.fetched.wait()  # still on greeting, 0%

    # The page's timers stop: the reload a turn schedules does not start until they go on.
    await console.page.clock.pause_at(await console.page.evaluate("Date.now() + 1000"))
    await console.page.get_by_label("Your message").fill("Got it, let's go")
    await console.page.get_by_label("Your message").press("Enter")
    await console.expect_step("discovery")
    assert await console.progress() == 33
    assert "Greeting" not in await painted_after(console, "step-name", held)
    assert await console.step() == "discovery" and await console.progress() == 33
    await console.page.clock.resume()
