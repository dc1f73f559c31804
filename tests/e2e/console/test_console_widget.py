"""The classic onboarding in the console: chat up to the brain dump, then its list widget."""

from __future__ import annotations

from playwright.async_api import Route, expect

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
    await expect(widget).to_contain_text("at least 1 item(s)")

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
    await expect(done).to_be_enabled()

    # The signal is recorded but its answer is lost: the alert says so and the list stays.
    async def lose_the_answer(route: Route) -> None:
        await route.fetch()
        body = {"error": {"code": "unavailable", "message": "the gateway went away"}}
        await route.fulfill(status=503, json=body)

    await page.route("**/signal", lose_the_answer)
    await done.click()
    alert = page.get_by_role("alert")
    await expect(alert).to_contain_text("Your list was not sent (503 unavailable)")
    await expect(items).to_have_text(["taxes"])
    await page.unroute("**/signal")

    # Sent again, the same signal is answered once: brain_dump wants a message first.
    await done.click()
    await expect(alert).to_be_hidden()
    await expect(widget).to_contain_text("is saved, but “Brain dump” did not close yet")
    await expect(page.locator("#blocked")).to_contain_text("needs at least 1 messages")
    signals = page.locator("#event-log li[data-type='workflow.signal_received']").filter(
        has_text="(brain_dump)"
    )
    await expect(signals).to_have_count(1)
    await console.expect_step("brain_dump")

    await page.reload()  # the list already sent comes back with the page
    await console.expect_step("brain_dump")
    await expect(items).to_have_text(["taxes"])
    await console.say("taxes")
    await console.expect_step("brain_dump")  # the chat alone does not close it
    await new_item.fill("call the bank")
    await new_item.press("Enter")
    await done.click()
    await console.expect_step("completed")
    await expect(widget).to_be_hidden()
    await expect(page.get_by_label("Your message")).to_be_focused()

    final = await console.say("thanks")
    assert "inbox" in final.lower(), final
    await expect(page.locator("#step-name")).to_contain_text("(done)")
    await expect(page.locator("#progress")).to_have_attribute("value", "100")
    await expect(page.locator("#explain")).to_have_text("Every step is done.")
    await expect(widget).to_be_hidden()

    instance = await page.evaluate("sessionStorage.getItem('baton.console.instance.hana')")
    async with stack.api("hana") as api:
        view = body_of(await api.get(f"/api/workflows/{instance}"))
    assert view["workflow_id"] == "onboarding-classic" and view["status"] == "completed"
    assert view["context"]["step_data"]["brain_dump"]["widget"] == {
        "type": "list_input",
        "completed": True,
        "items": ["taxes", "call the bank"],
    }


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
