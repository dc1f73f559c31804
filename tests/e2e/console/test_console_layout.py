"""The console's layout with what people write: words longer than a line, small screens."""

from __future__ import annotations

from .conftest import Console

LINK = "https://example.com/" + "a" * 400  # one word, far wider than a bubble
CLIPPED = "el => el.scrollWidth > el.clientWidth"
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
