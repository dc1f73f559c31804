"""`/docs` and `/redoc` render in Chromium under the gateway's Content-Security-Policy, and the
browser refuses nothing but ReDoc's credit logo from cdn.redoc.ly (a third party's image).

The gateway's app is served as built (nothing asked of NATS: the pages, their files and
`/openapi.json` are the gateway's own), on a socket bound before uvicorn starts."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import pytest
import uvicorn
from playwright.async_api import Browser, Page, expect

from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings

from .conftest import SECRET, WAIT_MS, _QuietServer

VIOLATIONS = """() => { window.violations = [];
  document.addEventListener('securitypolicyviolation',
    e => window.violations.push(e.effectiveDirective + ' ' + e.blockedURI)); }"""


@pytest.fixture(scope="module")
async def gateway() -> AsyncIterator[str]:
    notifier = build(NotifierSettings(jwt_secret=SECRET, nats_url="nats://127.0.0.1:1"))
    listening = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(notifier.app, lifespan="off", log_level="warning")
    server = _QuietServer(config, notifier.close_live)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        async with asyncio.timeout(30):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 15)
        listening.close()


async def opened(browser: Browser, url: str) -> tuple[Page, list[str]]:
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.add_init_script(f"({VIOLATIONS})()")
    response = await page.goto(url)
    assert response is not None and response.status == 200
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    return page, errors


async def test_swagger_ui_renders_and_tries_a_request_under_its_policy(
    browser: Browser, gateway: str
) -> None:
    page, errors = await opened(browser, f"{gateway}/docs")
    health = page.locator(".opblock-summary", has_text="/health").first
    await expect(health).to_be_visible(timeout=WAIT_MS)
    await health.click()
    await page.get_by_role("button", name="Try it out").click()
    await page.get_by_role("button", name="Execute").click()
    status = page.locator(".live-responses-table tbody .response-col_status").first
    await expect(status).to_have_text("503", timeout=WAIT_MS)  # answered: NATS is not there
    assert await page.evaluate("window.violations") == []
    assert errors == []


async def test_redoc_renders_and_searches_under_its_policy(browser: Browser, gateway: str) -> None:
    page, errors = await opened(browser, f"{gateway}/redoc")
    await expect(page.locator("h1").first).to_contain_text("Baton", timeout=WAIT_MS)
    await page.get_by_placeholder("Search...").fill("health")
    await expect(page.locator("[data-role='search:results'] li").first).to_be_visible(
        timeout=WAIT_MS
    )
    assert await page.evaluate("window.violations") == [
        "img-src https://cdn.redoc.ly/redoc/logo-mini.svg"
    ]
    assert errors == []
