"""The console when things go wrong around it: answers that come late, a gateway away."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Browser, Route, WebSocket, expect

from baton_notifier.domain.live import (
    CLOSE_INTERNAL,
    STREAM_RESET_REASON,
    too_many_sessions_reason,
)

from .conftest import Console, Stack, new_tab


async def test_an_answer_that_arrives_after_sign_out_stays_out_of_the_next_workspace(
    console: Console,
) -> None:
    await console.open()
    await console.sign_in("quinn")
    await console.start()
    answer_may_go = asyncio.Event()

    async def hold_the_answer(route: Route) -> None:
        if route.request.method != "POST":
            await route.continue_()
            return
        answer = await route.fetch()  # quinn's turn is recorded; the page hears of it later
        await answer_may_go.wait()
        await route.fulfill(response=answer)

    await console.page.route("**/messages", hold_the_answer)
    await console.page.get_by_label("Your message").fill("Hello there")
    await console.page.get_by_label("Your message").press("Enter")
    await expect(console.page.locator("#chat-status")).to_have_text("Waiting for the agent…")
    await console.page.get_by_role("button", name="Sign out").click()
    await console.sign_in("rita")
    await console.start()
    await console.live()
    await expect(console.page.get_by_role("button", name="Send")).to_be_enabled()

    answer_may_go.set()
    await console.page.wait_for_timeout(1000)  # room for quinn's answer to (wrongly) land
    assert await console.messages() == []
    assert await console.step() == "greeting" and await console.progress() == 0
    await expect(console.page.get_by_role("alert")).to_be_hidden()
    assert await console.say("Hello there")  # rita's own turn goes through
    assert len(await console.messages()) == 2


async def test_a_reload_while_the_gateway_is_away_keeps_the_sign_in(console: Console) -> None:
    await console.open()
    await console.sign_in("sasha")
    await console.start()
    await console.page.route("**/api/me", lambda route: route.abort("connectionrefused"))
    await console.open(console.page.url)  # reloaded while the gateway does not answer
    await expect(console.page.get_by_role("alert")).to_contain_text("did not answer")

    await console.page.unroute("**/api/me")
    await console.open(console.page.url)  # the gateway is back: the same session goes on
    await console.expect_signed_in("sasha")
    await console.expect_step("greeting")


async def test_a_pasted_token_no_header_can_carry_is_refused_as_a_token(
    console: Console, stack: Stack
) -> None:
    production = await stack.gateway(dev_sign_in=False)
    await console.open(production.url)
    token_box = console.page.get_by_label("Bearer token")
    alert = console.page.get_by_role("alert")
    for pasted in ["eyJhbGciOi\nJIUzI1NiJ9.e30.sig", "токен"]:  # a line break; not ASCII
        await token_box.fill(pasted)
        await console.page.get_by_role("button", name="Use this token").click()
        await expect(alert).to_contain_text("This token was refused")
        await expect(alert).not_to_contain_text("did not answer")
        await expect(token_box).to_have_value(pasted)
        stored = await console.page.evaluate("sessionStorage.getItem('baton.console.token')")
        assert stored is None


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "**/api/workflows/active"), ("POST", "**/api/workflows")]
)
async def test_an_onboarding_found_or_started_after_sign_out_is_not_opened(
    console: Console, method: str, path: str
) -> None:
    await console.open()
    answer_may_go = asyncio.Event()

    async def hold_the_answer(route: Route) -> None:
        if route.request.method != method:
            await route.continue_()
            return
        answer = await route.fetch()
        await answer_may_go.wait()
        await route.fulfill(response=answer)

    await console.page.route(path, hold_the_answer)
    if method == "POST":
        await console.sign_in("uma")
        await console.page.get_by_role("button", name="Start onboarding").click()
    else:  # an onboarding uma started elsewhere, found while she signs in
        await console.page.get_by_label("Your name").fill("uma")
        await console.page.get_by_role("button", name="Sign in").click()
        await console.expect_signed_in("uma")
    await console.page.get_by_role("button", name="Sign out").click()
    answer_may_go.set()
    await console.page.wait_for_timeout(1000)  # room for the answer to (wrongly) open it
    await expect(console.page.locator("#workspace")).to_be_hidden()
    await expect(console.page.locator("#start")).to_be_hidden()
    await expect(console.page.get_by_role("alert")).to_be_hidden()
    await expect(console.page.get_by_label("Your name")).to_be_focused()


async def test_dismissing_an_error_by_keyboard_keeps_the_focus_in_the_page(
    console: Console,
) -> None:
    await console.open()
    await console.sign_in("wanda")
    await console.start()
    box = console.page.get_by_label("Your message")
    away = {"error": {"code": "unavailable", "message": "no responders", "details": []}}
    await console.page.route("**/messages", lambda route: route.fulfill(status=503, json=away))
    await box.fill("Hello there")
    await box.press("Enter")
    dismiss = console.page.get_by_role("button", name="Dismiss")
    await expect(dismiss).to_be_visible()
    await dismiss.focus()
    await console.page.keyboard.press("Enter")
    await expect(console.page.get_by_role("alert")).to_be_hidden()
    await expect(console.page.locator("#main")).to_be_focused()  # not lost to <body>
    await console.page.keyboard.press("Tab")
    await expect(box).to_be_focused()  # the next Tab goes on where the work is


async def test_an_error_detail_that_names_no_field_is_shown_without_one(console: Console) -> None:
    # The gateway leaves `field` out of a detail about nothing in the request (docs/gateway.md,
    # "Which field"); the alert shows the detail's words alone, never "null: ...".
    await console.open()
    await console.sign_in("sam")
    await console.start()
    body = {
        "error": {
            "code": "unavailable",
            "message": "the agent did not answer",
            "details": [{"field": None, "message": "the agent-runner is restarting"}],
        }
    }

    async def refuse(route: Route) -> None:
        await route.fulfill(status=503, json=body)

    await console.page.route("**/messages", refuse)
    await console.page.get_by_label("Your message").fill("Hello there")
    await console.page.get_by_label("Your message").press("Enter")
    details = console.page.locator("#alert-details li")
    await expect(details).to_have_text(["the agent-runner is restarting"])


async def test_the_live_socket_resumes_with_the_seq_and_epoch_of_its_last_frame(
    console: Console, stack: Stack
) -> None:
    # A stream created again numbers its events from 1: resuming with last_seq alone, the
    # console could be replayed the new stream's events past it, the first ones skipped
    # unsaid. With the epoch of the frame, the gateway answers resync (and the console reloads).
    frames: list[dict[str, Any]] = []
    console.page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda data: frames.append(json.loads(data))),
    )
    await console.open()
    await console.sign_in("tove")
    await console.start()
    await console.live()
    await console.say("Hello there")  # its `workflow.messages_exchanged` comes over the socket
    for _ in range(100):
        if any("seq" in frame for frame in frames):
            break
        await asyncio.sleep(0.1)
    last = [frame for frame in frames if "seq" in frame][-1]
    live = stack.dev.notifier.live
    assert live is not None
    sessions = [s for s in live.hub.sessions() if s.filter.user_id == "tove"]
    assert sessions
    async with console.page.expect_websocket() as reconnect:
        for session in sessions:  # as at a stream reset: 1011, "reconnect with last_seq"
            session.end(CLOSE_INTERNAL, STREAM_RESET_REASON)
    query = parse_qs(urlsplit((await reconnect.value).url).query)
    assert query["last_seq"] == [str(last["seq"])]
    assert query["epoch"] == [last["epoch"]]
    await console.live()


async def test_live_updates_refused_for_too_many_connections_say_why_and_come_back_later(
    console: Console, stack: Stack, browser: Browser
) -> None:
    # The gateway closes a user's live connection over its cap with 1008. Reconnecting at
    # once is refused again: the console says why and waits 30 s, then gets back by itself.
    gateway = await stack.gateway(dev_sign_in=True, live_sessions_per_user=1)
    holder = await new_tab(browser, gateway.url)
    await holder.open()
    await holder.sign_in("yara")
    await holder.start()
    await holder.live()  # yara's one place

    sockets: list[WebSocket] = []
    console.page.on("websocket", lambda socket: sockets.append(socket))
    await console.page.clock.install()  # the 30 s wait, run forward instead of slept
    await console.open(gateway.url)
    await console.sign_in("yara")  # her onboarding opens, and its live socket is refused
    status = console.page.locator("#live-status")
    await expect(status).to_have_attribute("data-live", "paused")
    await expect(status).to_have_text(
        "Live updates paused: too many live connections for this user (close another tab); "
        "retrying in 30 s"
    )
    await expect(console.page.get_by_role("alert")).to_contain_text(
        f"Live updates paused: {too_many_sessions_reason(1)}"
    )
    await console.page.clock.fast_forward(20_000)
    await console.page.evaluate("0")  # a round trip: a socket opened by now has been seen
    assert len(sockets) == 1, "retried before 30 s"
    await console.page.clock.fast_forward(10_000)  # tried again, refused again: a longer wait
    await expect(status).to_contain_text("retrying in 60 s")
    assert len(sockets) == 2

    await holder.page.context.close()  # the other tab goes: its place is free again
    live = gateway.notifier.live
    assert live is not None
    for _ in range(100):
        if not live.sessions_of("yara"):
            break
        await asyncio.sleep(0.1)
    await console.page.clock.fast_forward(60_000)
    await console.live()
    await expect(console.page.get_by_role("alert")).to_be_hidden()
    assert len(sockets) == 3


async def test_panels_that_failed_to_load_while_a_service_was_away_load_once_it_is_back(
    console: Console, stack: Stack
) -> None:
    # A gateway started again answers before the services behind it: the reload its live
    # socket's `ready` asks for got a 503, and the panels (and that error) stayed as they were
    # until the person did something. Such a reload is tried again until it goes through.
    await console.open()
    await console.sign_in("zane")
    await console.start()
    await console.live()
    away = {"error": {"code": "unavailable", "message": "no responders", "details": []}}
    tries = asyncio.Queue[None]()

    async def not_up_yet(route: Route) -> None:  # the workflow service is not up yet
        await route.fulfill(status=503, json=away)
        tries.put_nowait(None)

    await console.page.route("**/progress", not_up_yet)
    async with stack.api("zane") as api:  # the onboarding moves on elsewhere meanwhile
        instance = (await api.get("/api/workflows/active")).json()["instances"][0]
        path = f"/api/workflows/{instance['instance_id']}/messages"
        await api.post(path, json={"text": "Hi, I'm ready, let's go"})
    alert = console.page.get_by_role("alert")
    await expect(alert).to_contain_text("Loading your onboarding: Baton is not answering right now")

    # An error shown meanwhile is not hidden by the retries' (said once, not at each try).
    await console.page.route("**/messages", lambda route: route.fulfill(status=503, json=away))
    await console.page.get_by_label("Your message").fill("Work and health matter most")
    await console.page.get_by_label("Your message").press("Enter")
    await expect(alert).to_contain_text("Your message was not sent")
    while not tries.empty():
        tries.get_nowait()
    await asyncio.wait_for(tries.get(), 15)  # a retry after the send's error, refused again
    await expect(alert).to_contain_text("Your message was not sent")

    await console.page.unroute("**/messages")
    await console.page.unroute("**/progress")  # the service is back
    await expect(console.page.locator("#event-log li")).to_have_count(3)
    await expect(console.page.locator("#chat-log li")).to_have_count(2)
    await expect(alert).to_contain_text("Your message was not sent")  # still to do: it is kept
    await console.page.get_by_role("button", name="Dismiss").click()
    assert await console.say("Work and health matter most")  # and sent, once

    # Once a retry goes through, its error goes by itself.
    await console.page.route("**/progress", not_up_yet)
    await console.open(console.page.url)  # a reload of the page, while the service is away
    await expect(alert).to_contain_text("Loading your onboarding: Baton is not answering right now")
    await console.page.unroute("**/progress")
    await expect(alert).to_be_hidden()
    await expect(console.page.locator("#chat-log li")).to_have_count(4)
