"""The web console driven in headless Chromium: sign in, chat, reload, live progress, why."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Browser, Route, expect

from .conftest import ANSWERED, Console, Stack, body_of, new_tab

# The English onboarding with the scripted agents (tests/integration/onboarding/test_chat.py):
# (text, the step the instance is on after the answer).
SCRIPT = [
    ("Hello there", "greeting"),
    ("Got it, let's go", "discovery"),
    ("Work and health matter most", "discovery"),
    ("Also my hobbies", "discovery"),
    ("yes", "discovery"),
    ("yes", "discovery"),
    ("yes, that's right", "brain_dump"),
    ("- milk\n- bread", "brain_dump"),
    ("call the bank", "brain_dump"),
    ("that's all", "setup_complete"),
]


async def test_a_user_completes_the_onboarding_by_chat(console: Console) -> None:
    await console.open()
    await console.sign_in("bob")
    await console.start()
    assert await console.progress() == 0
    seen = [0]
    for text, step in SCRIPT:
        await console.say(text)
        await console.expect_step(step)
        if (value := await console.progress()) != seen[-1]:
            seen.append(value)
    assert seen == sorted(seen) and len(seen) == 4, seen  # it moved at every transition

    final = await console.say("thanks")
    assert "Priorities: 3" in final and "inbox items: 3" in final
    await expect(console.page.locator("#progress")).to_have_attribute("value", "100")
    await expect(console.page.locator("#step-name")).to_contain_text("(done)")
    await expect(console.page.get_by_label("Your message")).to_be_disabled()
    await expect(console.page.locator("#chat-status")).to_have_text("This onboarding is complete.")
    messages = await console.messages()
    assert len(messages) == 2 * (len(SCRIPT) + 1)
    assert messages[0] == "Hello there" and messages[14] == "- milk\n- bread"
    await expect(console.page.locator("#explain")).to_have_text("Every step is done.")


async def test_a_reload_mid_way_shows_the_same_step_and_conversation(
    console: Console, browser: Browser, stack: Stack, tmp_path: Path
) -> None:
    await console.open()
    keyboard = console.page.keyboard  # keyboard only: the focus is always where it is needed
    await keyboard.type("carol")
    await keyboard.press("Enter")
    await console.expect_signed_in("carol")
    await expect(console.page.get_by_role("button", name="Start onboarding")).to_be_focused()
    await keyboard.press("Enter")
    await console.expect_step("greeting")
    await expect(console.page.get_by_label("Your message")).to_be_focused()
    await keyboard.type(SCRIPT[0][0])
    await keyboard.press("Enter")
    await console.page.wait_for_function(ANSWERED, arg=1, polling="raf")
    for text, _ in SCRIPT[1:3]:
        await console.say(text)
    await console.expect_step("discovery")
    before = (await console.messages(), await console.progress())
    assert before[1] > 0

    await console.page.reload()
    await expect(console.page.locator("#who-name")).to_have_text("carol")  # still signed in
    await expect(console.page.locator("#chat-log li")).to_have_count(6)
    await console.expect_step("discovery")
    assert (await console.messages(), await console.progress()) == before
    assert await console.page.locator("#sign-in").is_hidden()
    await console.live()
    summary = await console.say("Also my hobbies")  # the conversation goes on where it was
    assert "here is what i understood" in summary.lower()

    # A new tab with empty storage finds the same onboarding through the API after sign-in.
    other = await new_tab(browser, stack.dev.url)
    await other.open()
    await other.sign_in("carol")
    await other.expect_step("discovery")
    await expect(other.page.locator("#chat-log li")).to_have_count(8)
    assert await other.messages() == [*before[0], "Also my hobbies", summary]
    await other.page.screenshot(path=tmp_path / "second-tab.png")
    await other.page.context.close()


async def test_progress_and_step_update_live_when_the_onboarding_moves_elsewhere(
    console: Console, stack: Stack
) -> None:
    await console.open()
    await console.sign_in("dave")
    await console.start()
    await console.live()
    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.dave')")
    async with stack.api("dave") as api:  # the same user in another app
        for index, text in enumerate(["Hello there", "Got it, let's go"]):
            body = {"text": text, "client_message_id": f"elsewhere-{index}"}
            body_of(await api.post(f"/api/workflows/{instance}/messages", json=body))
    await console.expect_step("discovery")
    await expect(console.page.locator("#progress")).to_have_attribute("value", "33")
    await expect(console.page.locator("#progress-text")).to_have_text("33%")
    await expect(console.page.locator("#chat-log li")).to_have_count(4)
    assert (await console.messages())[2] == "Got it, let's go"
    steps = console.page.locator("#steps li")
    await expect(steps.nth(0)).to_have_attribute("data-status", "completed")
    await expect(steps.nth(1)).to_have_attribute("aria-current", "step")


async def test_the_panels_keep_up_while_events_keep_coming(console: Console, stack: Stack) -> None:
    # Each live event put the panels' refresh off by 150 ms again: events closer together than
    # that (another app talking to the instance) froze the log until they stopped.
    await console.open()
    await console.sign_in("kira")
    await console.start()
    await console.live()
    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.kira')")
    log = console.page.locator("#event-log li")
    await expect(log).to_have_count(1)
    loop = asyncio.get_running_loop()
    async with stack.api("kira") as api:
        end, index = loop.time() + 3.0, 0
        while loop.time() < end and index < 25:  # the greeting is forced on at 10, discovery
            body = {"text": "what do you mean?", "client_message_id": f"burst-{index}"}
            body_of(await api.post(f"/api/workflows/{instance}/messages", json=body))
            index += 1
            await asyncio.sleep(0.03)
        shown_during = await log.count()  # before the burst's own last refresh can run
    assert shown_during > 1, f"{index} turns, and the log still showed 1 event"


async def test_the_explain_panel_says_why_a_step_is_blocked_and_the_log_lists_events(
    console: Console, stack: Stack
) -> None:
    await console.open()
    await console.sign_in("erin")
    await console.start()
    await console.live()
    explain = console.page.locator("#explain")
    await expect(explain.locator("[data-can-complete]")).to_have_attribute(
        "data-can-complete", "false"
    )
    # In words for the user, not the checker's name and its note for developers.
    await expect(explain.locator("li.unmet[data-checker=agent_signal]")).to_have_text(
        "The agent has not said yet that this step is done. (not met)"
    )
    await expect(explain).to_contain_text("0 messages so far. It needs at least 2")
    await expect(explain).not_to_contain_text("agent_signal")
    log = console.page.locator("#event-log li")
    await expect(log.first).to_have_attribute("data-type", "workflow.instance_started")

    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.erin')")
    async with stack.api("erin") as api:
        answer = body_of(
            await api.post(f"/api/workflows/{instance}/signal", json={"action": "complete_step"})
        )
    assert answer["outcome"] == "blocked"
    blocked = console.page.locator("#blocked")
    assert answer["reason"] == "step 'greeting' needs at least 2 messages (has 0)"
    await expect(blocked).to_contain_text("“Greeting” needs at least 2 messages, and has 0.")
    await expect(blocked).to_contain_text("At least 2 messages: 0 sent so far.")
    await expect(blocked).not_to_contain_text("min_messages")
    await expect(
        console.page.locator("#event-log li[data-type='workflow.step_blocked']")
    ).to_have_count(1)
    await console.expect_step("greeting")

    await console.say("Hello there")
    await expect(explain).to_contain_text("“Greeting”: 1 message so far.")  # not "1 message(s)"
    types = await log.evaluate_all("items => items.map(i => i.dataset.type)")
    assert "workflow.exchange_recorded" in types, types


async def test_errors_are_shown_and_the_typed_text_is_kept(
    console: Console, tmp_path: Path
) -> None:
    await console.open()
    await console.page.get_by_label("Your name").fill("two words")
    await console.page.get_by_role("button", name="Sign in").click()
    alert = console.page.get_by_role("alert")
    await expect(alert.locator("#alert-text")).to_have_text(
        "Signing in: something in it was not accepted."
    )
    await expect(alert.locator("#alert-details")).to_contain_text("Your name: must not contain")
    more = alert.locator("#alert-more")  # the gateway's own words, folded away
    await expect(more.locator("summary")).to_have_text("What the gateway said")
    await expect(more.locator("#alert-raw")).to_be_hidden()
    await more.locator("summary").click()
    await expect(more.locator("#alert-raw")).to_contain_text("422 invalid: request is invalid")
    await expect(console.page.get_by_label("Your name")).to_have_value("two words")

    await console.sign_in("frank")
    await expect(alert).to_be_hidden()
    await console.start()
    too_long = "x" * 8001
    box = console.page.get_by_label("Your message")
    sent: list[str] = []
    console.page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    await box.fill("x" * 6399)
    await expect(console.page.locator("#chat-count")).to_be_hidden()  # far from the limit
    await box.fill(too_long)
    count = console.page.locator("#chat-count")
    await expect(count).to_have_text("8,001 of 8,000 characters: 1 too many to send")
    await expect(box).to_have_attribute("aria-invalid", "true")
    await box.press("Enter")
    # Said before it leaves: the gateway's 413 ("body.text: has 8001 characters; the limit
    # is 8000") is never asked for.
    await expect(console.page.locator("#chat-status")).to_have_text(
        "Not sent: it is too long (8,001 characters; a message takes at most 8,000). "
        "Shorten it, or send it in parts."
    )
    await expect(box).to_have_value(too_long)
    await expect(console.page.locator("#chat-log li")).to_have_count(0)
    assert sent == []
    await expect(alert).to_be_hidden()
    await console.page.screenshot(path=tmp_path / "refused-message.png")

    await box.fill("Hello there")  # after fixing it, the message goes through once
    await expect(count).to_be_hidden()
    await box.press("Enter")
    await expect(console.page.locator("#chat-log li")).to_have_count(2)
    await expect(alert).to_be_hidden()


def refusing(status: int, error: object) -> Callable[[Route], Awaitable[None]]:
    """A route handler answering every request with the gateway's error body `error`."""

    async def refuse(route: Route) -> None:
        await route.fulfill(status=status, json=error)

    return refuse


async def test_the_gateways_error_codes_are_said_in_plain_words(console: Console) -> None:
    await console.open()
    await console.sign_in("fiona")
    await console.start()
    box = console.page.get_by_label("Your message")
    alert = console.page.get_by_role("alert")
    # (status, code, message, details): as the gateway answers (docs/gateway.md#errors).
    answers = [
        (413, "too_large", "body.text: has 20000 characters; the limit is 8000",
         [{"field": "body.text", "message": "has 20000 characters; the limit is 8000"}],
         "Your message was not sent: it is too long (20,000 characters; a message takes at "
         "most 8,000). Shorten it, or send it in parts."),
        (503, "unavailable", "no reply on 'workflow.cmd.send_message' within 15s", [],
         "Your message was not sent: Baton is not answering right now (a service is busy or "
         "starting). Try again in a moment: nothing you typed is lost."),
        (409, "conflict", "instance i1 is at version 7, not 6", [],
         "Your message was not sent: it changed in the meantime. Look at it again, then try "
         "again."),
        (500, "internal", "KeyError: 'x'", [],
         "Your message was not sent: something went wrong inside Baton. Try again; if it "
         "happens again, tell whoever runs it."),
    ]  # fmt: skip
    for status, code, message, details, said in answers:
        error = {"error": {"code": code, "message": message, "details": details}}
        await console.page.route("**/messages", refusing(status, error))
        await box.fill("Hello there")
        await box.press("Enter")
        await expect(alert.locator("#alert-text")).to_have_text(said)
        await expect(alert.locator("#alert-details li")).to_have_count(0)
        await expect(alert.locator("#alert-raw")).to_have_text(f"{status} {code}: {message}")
        await expect(box).to_have_value("Hello there")
        await console.page.unroute("**/messages")


async def test_in_production_a_token_is_pasted_or_handed_over_in_the_fragment(
    console: Console, browser: Browser, stack: Stack
) -> None:
    production = await stack.gateway(dev_sign_in=False)
    await console.open(production.url)
    await expect(console.page.get_by_label("Your name")).to_be_hidden()
    token_box = console.page.get_by_label("Bearer token")
    await token_box.fill("not-a-token")
    await console.page.get_by_role("button", name="Use this token").click()
    await expect(console.page.get_by_role("alert")).to_contain_text("refused")
    await expect(token_box).to_have_value("not-a-token")

    async with stack.api("gina") as api:
        token = api.headers["Authorization"].removeprefix("Bearer ")
    await token_box.fill(token)
    await console.page.get_by_role("button", name="Use this token").click()
    await console.expect_signed_in("gina")
    await expect(console.page.get_by_role("button", name="Start onboarding")).to_be_visible()
    await console.page.get_by_role("button", name="Sign out").click()
    await expect(console.page.get_by_label("Bearer token")).to_be_visible()

    # An embedding app hands the token over in the fragment: to a new tab, or an open one.
    # It signs in once the person agrees, told whose account it opens: taken at once, anyone's
    # link signed the person into the sender's account (where what they typed then went).
    async with stack.api("hana") as api:
        other_token = api.headers["Authorization"].removeprefix("Bearer ")
    fresh = await new_tab(browser, production.url)
    await fresh.open(f"{production.url}/#token={token}")
    assert "token" not in fresh.page.url
    offer = fresh.page.get_by_role("region", name="Sign in from a link")
    await expect(offer).to_contain_text("signs you in as gina")
    await expect(fresh.page.locator("#who")).to_be_hidden()
    await fresh.page.get_by_role("button", name="Sign in as gina").click()
    await fresh.expect_signed_in("gina")
    await expect(offer).to_be_hidden()

    await fresh.page.evaluate(f"location.hash = 'token={other_token}'")
    await expect(offer).to_contain_text("signs you in as hana")
    await fresh.expect_signed_in("gina")  # nothing changed yet
    await fresh.page.get_by_role("button", name="Cancel").click()
    await expect(offer).to_be_hidden()
    await fresh.expect_signed_in("gina")

    await fresh.page.evaluate(f"location.hash = 'token={other_token}'")
    await fresh.page.get_by_role("button", name="Sign in as hana").click()
    await fresh.expect_signed_in("hana")
    assert "token" not in fresh.page.url

    # A token of the account already signed in (a renewed one) is taken without asking; a
    # link's token the gateway refuses says so and signs nobody out.
    await fresh.page.evaluate(f"location.hash = 'token={other_token}'")
    await fresh.page.evaluate("location.hash = 'token=not.a.token'")
    await expect(fresh.page.get_by_role("alert")).to_contain_text(
        "The token in the link was refused"
    )
    await expect(offer).to_be_hidden()
    await fresh.expect_signed_in("hana")
    await fresh.page.context.close()


async def test_a_message_retried_after_a_lost_answer_counts_once(
    console: Console, stack: Stack
) -> None:
    await console.open()
    await console.sign_in("ivan")
    await console.start()
    lost: list[str] = []

    async def lose_the_first_answer(route: Route) -> None:
        if route.request.method != "POST" or lost:
            await route.continue_()
            return
        await route.fetch()  # the gateway records the turn; the browser never hears back
        lost.append(route.request.post_data or "")
        await route.abort("connectionreset")

    await console.page.route("**/messages", lose_the_first_answer)
    box = console.page.get_by_label("Your message")
    await box.fill("Hello there")
    await box.press("Enter")
    await expect(console.page.get_by_role("alert")).to_contain_text("was not sent")
    await expect(box).to_have_value("Hello there")

    await box.press("Enter")  # the same text again: the same client_message_id
    await expect(box).to_have_value("")
    await expect(console.page.get_by_role("alert")).to_be_hidden()
    await expect(console.page.locator("#chat-log li")).to_have_count(2)
    retried = json.loads(lost[0])["client_message_id"]
    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.ivan')")
    async with stack.api("ivan") as api:
        view = body_of(await api.get(f"/api/workflows/{instance}"))
        conversation = body_of(await api.get(f"/api/workflows/{instance}/messages"))
    assert view["messages_in_step"] == 1
    assert [m["client_message_id"] for m in conversation["messages"]] == [retried, retried]


async def test_after_a_turn_the_console_reads_only_what_was_recorded_since(
    console: Console, stack: Stack
) -> None:
    # It read every page of the conversation and of the log from the start after each turn
    # and each live event: a long onboarding's whole log, again and again.
    await console.open()
    await console.sign_in("gina")
    await console.start()
    await console.live()
    asked: list[str] = []
    console.page.on("request", lambda request: asked.append(request.url))
    said = []
    for text, _ in SCRIPT[:4]:
        said += [text, await console.say(text)]
    instance = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.gina')")
    async with stack.api("gina") as api:
        last = body_of(await api.get(f"/api/workflows/{instance}/events"))["events"][-1]
    log = console.page.locator("#event-log li")
    await expect(log.last).to_have_attribute("data-version", str(last["version"]))

    reads = [url for url in asked if "/messages?" in url or "/events?" in url]
    assert reads and not [url for url in reads if url.endswith("after_version=0")], reads
    assert await console.messages() == said  # each message once, in order
    versions = await log.evaluate_all("items => items.map(i => Number(i.dataset.version))")
    assert versions == list(range(1, last["version"] + 1))
