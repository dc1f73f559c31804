"""The classic onboarding in the console: chat up to the brain dump, then its list widget."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Route, expect

from baton_contracts.signal_data import MAX_CONTEXT_PART_BYTES

from .conftest import Console, Stack, body_of

# Greeting and discovery with the scripted agents, in English (as the integration tests of the
# classic onboarding say them): after the last one the instance is on brain_dump.
TO_BRAIN_DUMP = ["hi", "got it", "work; health; family", "yes"]


async def test_the_classic_onboarding_finishes_through_its_list_widget(
    console: Console, stack: Stack
) -> None:
    page = console.page
    await console.open()
    await console.sign_in("hana")
    await page.get_by_label("Classic onboarding").check()
    await console.start()
    widget = page.locator("#widget")
    for text in TO_BRAIN_DUMP:
        await expect(widget).to_be_hidden()  # the chat steps ask for no list
        await console.say(text)
    await console.expect_step("brain_dump")
    await expect(widget).to_be_visible()
    await expect(widget).to_contain_text("at least 1 item, one at a time")  # not "item(s)"

    done = page.get_by_role("button", name="Done")
    items = page.locator("#widget-items .text")
    new_item = page.get_by_label("New item")
    await expect(done).to_be_disabled()  # fewer items than the step's min_items
    for text in ("taxes", "call the bank", "   "):
        await new_item.fill(text)
        await new_item.press("Enter")
    await expect(items).to_have_text(["taxes", "call the bank"])  # a blank item is no item
    await page.get_by_role("button", name="Remove “call the bank”").click()
    await expect(items).to_have_text(["taxes"])
    # brain_dump wants one message to its agent before anything closes it: Done says so and
    # waits, instead of being refused and having to be pressed again after the message.
    await expect(done).to_be_disabled()
    await expect(widget).to_contain_text("first it needs 1 more message to the agent")
    await expect(done).to_have_accessible_description(re.compile("1 more message to the agent"))
    # The explanation tells what Done does: it sends the signal, which is no criterion left to
    # the user; what Done waits for is said instead.
    signal = page.locator("#explain li[data-checker=agent_signal]")
    await expect(signal).to_have_class("by-done")
    await expect(signal).to_contain_text("The step is done when you press Done on your list.")
    verdict = page.locator("#explain [data-done]")
    await expect(verdict).to_have_attribute("data-done", "waits")
    await expect(verdict).to_contain_text("first this step needs 1 more message to the agent")
    await console.say("taxes")
    await expect(done).to_be_enabled()
    await expect(widget).not_to_contain_text("more message")
    await expect(verdict).to_have_attribute("data-done", "closes")
    await expect(verdict).to_contain_text("Done on your list closes “Brain dump”")
    await expect(signal).to_have_class("by-done")

    # The first try never reaches the gateway; the second is recorded but its answer is lost.
    # The alert says so each time, the list stays, and both carry one command_id.
    sent: list[Any] = []
    console.page.on(
        "request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/signal") else None
    )

    async def unavailable(route: Route) -> None:
        body = {"error": {"code": "unavailable", "message": "the gateway went away"}}
        await route.fulfill(status=503, json=body)

    async def lose_the_answer(route: Route) -> None:
        await route.fetch()
        await unavailable(route)

    await page.route("**/signal", unavailable)
    await done.click()
    alert = page.get_by_role("alert")
    await expect(alert).to_contain_text("Your list was not sent: Baton is not answering right now")
    await expect(items).to_have_text(["taxes"])
    await page.unroute("**/signal")
    await page.route("**/signal", lose_the_answer)
    await done.click()  # one press closes the step: the live events move the page on
    await console.expect_step("completed")
    await expect(widget).to_be_hidden()
    await page.unroute("**/signal")
    assert len(sent) == 2 and sent[0]["command_id"] == sent[1]["command_id"], sent
    await page.get_by_role("button", name="Dismiss").click()

    final = await console.say("thanks")
    assert "inbox" in final.lower(), final
    await expect(page.locator("#step-name")).to_contain_text("(done)")
    await expect(page.locator("#progress")).to_have_attribute("value", "100")
    await expect(page.locator("#explain")).to_have_text("Every step is done.")
    await expect(widget).to_be_hidden()

    instance = await page.evaluate("sessionStorage.getItem('baton.console.instance.hana')")
    async with stack.api("hana") as api:
        view = body_of(await api.get(f"/api/workflows/{instance}"))
        log = body_of(await api.get(f"/api/workflows/{instance}/events"))["events"]
    assert view["workflow_id"] == "onboarding-classic" and view["status"] == "completed"
    assert view["context"]["step_data"]["brain_dump"]["widget"] == {
        "type": "list_input",
        "completed": True,
        "items": ["taxes"],
    }
    on_brain_dump = [e for e in log if e["payload"].get("step") == "brain_dump"]
    manual = [e for e in on_brain_dump if e["payload"].get("source") == "manual"]
    assert len(manual) == 1, manual  # the list was signalled once, and not refused
    assert not [e for e in on_brain_dump if e["type"] == "workflow.step_blocked"], on_brain_dump


async def test_an_active_classic_onboarding_is_opened_after_sign_in(
    console: Console, stack: Stack
) -> None:
    async with stack.api("ivan") as api:  # started elsewhere: another tab, another app
        classic = {"workflow_id": "onboarding-classic"}
        started = body_of(await api.post("/api/workflows", json=classic))
    await console.open()
    await console.sign_in("ivan")
    await console.expect_step("greeting")
    opened = await console.page.evaluate("sessionStorage.getItem('baton.console.instance.ivan')")
    assert opened == started["instance_id"]
    await expect(console.page.locator("#steps li")).to_have_count(4)  # the classic's steps


async def test_a_list_sent_elsewhere_comes_back_and_waits_for_the_message(
    console: Console, stack: Stack
) -> None:
    async with stack.api("olga") as api:  # another app: to brain_dump, then the list, refused
        classic = {"workflow_id": "onboarding-classic"}
        instance = body_of(await api.post("/api/workflows", json=classic))["instance_id"]
        for number, text in enumerate(TO_BRAIN_DUMP):
            said = {"text": text, "client_message_id": f"m{number}"}
            body_of(await api.post(f"/api/workflows/{instance}/messages", json=said))
        widget = {"type": "list_input", "completed": True, "items": ["taxes"]}
        signal = {"action": "complete_step", "data": {"widget": widget}}
        refused = body_of(await api.post(f"/api/workflows/{instance}/signal", json=signal))
    assert refused["outcome"] == "blocked", refused

    page = console.page
    await console.open()
    await console.sign_in("olga")
    await console.expect_step("brain_dump")
    items = page.locator("#widget-items .text")
    done = page.get_by_role("button", name="Done")
    await expect(items).to_have_text(["taxes"])  # the list already sent comes back
    await expect(page.locator("#widget")).to_contain_text("first it needs 1 more message")
    await expect(done).to_be_disabled()
    await console.say("that's my list")
    await expect(done).to_be_enabled()
    await done.click()
    await console.expect_step("completed")
    await expect(page.locator("#widget")).to_be_hidden()


async def test_both_onboardings_in_progress_are_listed_and_either_can_be_shown(
    console: Console, stack: Stack
) -> None:
    async with stack.api("pavel") as api:  # both started elsewhere, the classic one first
        started = {
            workflow: body_of(await api.post("/api/workflows", json={"workflow_id": workflow}))
            for workflow in ("onboarding-classic", "onboarding")
        }
    page = console.page
    await console.open()
    await console.sign_in("pavel")
    await console.expect_step("greeting")
    shown = "sessionStorage.getItem('baton.console.instance.pavel')"
    first = await page.evaluate(shown)
    other = next(s for s in started.values() if s["instance_id"] != first)
    other_name = "Onboarding" if other["workflow_id"] == "onboarding" else "Classic onboarding"

    listing = page.get_by_role("region", name="Your onboardings")
    await expect(listing).to_be_visible()
    await expect(listing.locator("li")).to_have_count(2)
    await expect(listing.locator("li[aria-current=true]")).to_contain_text("shown here")
    await page.get_by_role("button", name=f"Show {other_name}").click()
    await console.expect_step("greeting")
    await expect(listing.locator("li[aria-current=true]")).to_contain_text(other_name)
    assert await page.evaluate(shown) == other["instance_id"]
    last_step = "setup_complete" if other["workflow_id"] == "onboarding" else "completed"
    await expect(page.locator("#steps li").last).to_have_attribute("data-step", last_step)
    await expect(page.get_by_label("Your message")).to_be_focused()

    await page.reload()  # the one picked stays on screen, the other one a button away
    await console.expect_step("greeting")
    assert await page.evaluate(shown) == other["instance_id"]
    await expect(listing.locator("li")).to_have_count(2)
    await expect(page.get_by_role("button", name=re.compile("^Show "))).to_have_count(1)


async def fill(api: Any, instance: str, part: str) -> None:
    """Grow the instance's step data (`data`) or `shared` to its limit, by signals within
    theirs: 64 KiB each, then what the last refusal (413) says is left."""
    size, n = 65_000, 0
    while size > 0:
        sent = await api.post(
            f"/api/workflows/{instance}/signal",
            json={"action": "stay", part: {f"k{n}": "x" * size}},
        )
        if sent.status_code == 413:
            grown = int(re.findall(r"(\d+) bytes", sent.json()["error"]["message"])[0])
            size -= grown - MAX_CONTEXT_PART_BYTES
            continue
        body_of(sent)
        if size < 65_000:
            return
        n += 1
        size = 65_000 if n < 4 else 4_000


async def test_onboardings_filled_to_their_limits_are_opened(
    console: Console, stack: Stack
) -> None:
    """Listed with their contexts, two full onboardings made /active 500 (over the 1 MiB a
    NATS reply carries), and the console, which asks it first, could not open at all."""
    async with stack.api("rosa") as api:
        ids = []
        for workflow in ("onboarding-classic", "onboarding"):
            started = body_of(await api.post("/api/workflows", json={"workflow_id": workflow}))
            ids.append(started["instance_id"])
            await fill(api, started["instance_id"], "data")
            await fill(api, started["instance_id"], "shared")
        active = body_of(await api.get("/api/workflows/active"))
    assert [i["instance_id"] for i in active["instances"]] == ids
    page = console.page
    await console.open()
    await console.sign_in("rosa")
    await console.expect_step("greeting")
    listing = page.get_by_role("region", name="Your onboardings")
    await expect(listing.locator("li")).to_have_count(2)
    await expect(listing).to_contain_text("on step greeting, 0% done")


async def test_an_onboarding_on_a_later_page_of_the_list_is_found(
    console: Console, stack: Stack
) -> None:
    """The list comes a page at a time: a user's onboarding may be on the second page (after
    many instances of other workflows), which the console follows `next_after` to."""
    async with stack.api("sven") as api:
        started = body_of(await api.post("/api/workflows", json={"workflow_id": "onboarding"}))
    asked: list[str] = []

    async def split_in_two_pages(route: Route) -> None:
        asked.append(route.request.url)
        if "after=" not in route.request.url:  # a first page of other workflows only
            other = {"instances": [], "next_after": "others-last"}
            await route.fulfill(json=other)
            return
        assert route.request.url.endswith("?after=others-last")
        await route.fulfill(response=await route.fetch(url=route.request.url.split("?")[0]))

    await console.page.route(re.compile(r".*/api/workflows/active(\?.*)?$"), split_in_two_pages)
    await console.open()
    await console.sign_in("sven")
    await console.expect_step("greeting")
    shown = "sessionStorage.getItem('baton.console.instance.sven')"
    assert await console.page.evaluate(shown) == started["instance_id"]
    assert len(asked) == 2, asked
