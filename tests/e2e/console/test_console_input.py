"""The console with what people write: a blank message, a word longer than a line."""

from __future__ import annotations

from playwright.async_api import expect

from .conftest import Console

LINK = "https://example.com/" + "a" * 400  # one word, far wider than a bubble
CLIPPED = "el => el.scrollWidth > el.clientWidth"
RELOAD = "async () => (await import('/console/reload.js')).reload()"  # what a live event does
PAGE_WIDER_THAN_SCREEN = (
    "() => document.documentElement.scrollWidth > document.documentElement.clientWidth"
)


async def test_a_word_longer_than_a_line_breaks_in_its_bubble(console: Console) -> None:
    await console.open()
    await console.sign_in("nora")
    await console.start()
    await console.say(LINK)
    mine = console.page.locator("#chat-log li[data-role=user]")
    assert await mine.locator(".text").inner_text() == LINK
    assert not await mine.evaluate(CLIPPED), "the message runs out of its bubble, cut off"

    await console.page.set_viewport_size({"width": 390, "height": 800})  # a phone
    assert not await mine.evaluate(CLIPPED)
    assert not await console.page.evaluate(PAGE_WIDER_THAN_SCREEN), "the page scrolls sideways"


async def test_a_blank_message_is_not_sent_and_says_why(console: Console) -> None:
    await console.open()
    await console.sign_in("olga")
    await console.start()
    box = console.page.get_by_label("Your message")
    status = console.page.locator("#chat-status")
    await box.fill("  \n  ")  # the box is `required`, but spaces and line breaks pass that
    await box.press("Enter")
    await expect(status).to_have_text("Nothing to send: your message is blank.")
    await console.page.get_by_role("button", name="Send").click()
    await expect(status).to_have_text("Nothing to send: your message is blank.")
    # A live event reads the panels again (as the instance's first event did on CI, wiping the
    # notice before anyone could read it): the notice stays.
    await console.page.evaluate(RELOAD)
    await expect(status).to_have_text("Nothing to send: your message is blank.")
    await expect(console.page.locator("#chat-log li")).to_have_count(0)
    await expect(console.page.get_by_role("alert")).to_be_hidden()

    assert await console.say("Hello there")  # the next one goes, and the notice with it
    await expect(status).to_have_text("")
