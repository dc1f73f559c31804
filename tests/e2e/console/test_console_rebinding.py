"""DNS rebinding: a page whose own name resolves to the dev gateway's 127.0.0.1 cannot sign in.

Chromium's `--host-resolver-rules` plays the attacker's DNS: `rebound.example` resolves to
127.0.0.1, so the page at `http://rebound.example:<port>/` is answered by the dev gateway, and
is same-origin with it as far as the browser can tell. Only the Host it sends gives it away.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, async_playwright, expect

from .conftest import WAIT_MS, Console, Stack, chromium_or_skip

REBOUND = "rebound.example"


@pytest.fixture(scope="module")
async def rebinding_browser() -> AsyncIterator[Browser]:
    executable = chromium_or_skip()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(executable),
            args=[f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1"],
        )
        yield launched
        await launched.close()


async def test_a_page_on_a_rebound_name_gets_no_dev_token(
    rebinding_browser: Browser, stack: Stack
) -> None:
    context = await rebinding_browser.new_context()
    context.set_default_timeout(WAIT_MS)
    try:
        tab = Console(await context.new_page(), f"http://{REBOUND}:{stack.dev.port}/")
        await tab.open()
        # What an attacker's script would do from that page: ask for anyone's token.
        answer = await tab.page.evaluate(
            """async () => {
                const r = await fetch("/api/dev/token", {method: "POST",
                    headers: {"Content-Type": "application/json"},
                    body: JSON.stringify({user_id: "victim"})});
                return {status: r.status, body: await r.json()};
            }"""
        )
        assert answer["status"] == 403, answer
        assert "token" not in answer["body"]
        assert (
            f"'{REBOUND}:{stack.dev.port}' is not a loopback" in answer["body"]["error"]["message"]
        )

        await tab.page.get_by_label("Your name").fill("victim")  # and the console says why
        await tab.page.get_by_role("button", name="Sign in").click()
        alert = tab.page.get_by_role("alert")
        await expect(alert).to_contain_text("403 forbidden")
        await expect(alert).to_contain_text(f"host '{REBOUND}:{stack.dev.port}'")
        await expect(tab.page.locator("#who")).to_be_hidden()

        await tab.open(stack.dev.url)  # the same browser on 127.0.0.1 signs in as before
        await tab.sign_in("victim")
        assert tab.errors == []
    finally:
        await context.close()
