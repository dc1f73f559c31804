"""The web console in a real browser: the onboarding stack in-process, the gateway on a socket.

Workflow, agent-runner (scripted model, SQLite and a Qdrant folder under tmp_path) and the
gateway are built by their own `bootstrap.build` on the session's NATS, as `baton up` wires
them; the gateway is served by uvicorn on a free port so Chromium reaches it over HTTP and
WebSocket. Chromium is Debian's `/usr/bin/chromium`, never a downloaded build: without it the
tests skip, unless `BATON_REQUIRE_BROWSER=1` (CI) makes that a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from playwright.async_api import Browser, Page, async_playwright, expect

from baton_agent_runner.bootstrap import AgentRunnerApp
from baton_agent_runner.bootstrap import build as build_agent_runner
from baton_agent_runner.settings import AgentRunnerSettings
from baton_auth import mint_token
from baton_notifier.bootstrap import Notifier
from baton_notifier.bootstrap import build as build_notifier
from baton_notifier.entrypoints.server import GatewayServer
from baton_notifier.settings import NotifierSettings
from baton_workflow.bootstrap import WorkflowApp
from baton_workflow.bootstrap import build as build_workflow
from baton_workflow.settings import WorkflowSettings

CHROMIUM = Path("/usr/bin/chromium")
REQUIRE_ENV = "BATON_REQUIRE_BROWSER"
SECRET = "console-browser-tests-secret-32-bytes!"
WAIT_MS = 15_000  # a bound on any one expected change, so a broken page fails instead of hanging


class _QuietServer(GatewayServer):
    """No signal handlers: pytest owns Ctrl-C."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Gateway:
    """One gateway under uvicorn on its own port."""

    notifier: Notifier
    port: int
    server: _QuietServer
    task: asyncio.Task[None]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        self.server.should_exit = True
        await asyncio.wait_for(self.task, 15)
        await self.notifier.stop()


async def serve_gateway(nats_url: str, *, dev_sign_in: bool, **overrides: Any) -> Gateway:
    """A gateway on a free port; `overrides` are more `NotifierSettings` fields."""
    # Bound before uvicorn starts: a port picked free and let go may be taken meanwhile.
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    settings = NotifierSettings(
        nats_url=nats_url, jwt_secret=SECRET, http_port=port, dev_sign_in=dev_sign_in,
        chat_timeout_seconds=15.0, live_heartbeat_seconds=0.5, **overrides,
    )  # fmt: skip
    notifier = build_notifier(settings)
    await notifier.start()
    assert notifier.link is not None and notifier.live_feed is not None
    await notifier.link.wait_started()
    await asyncio.wait_for(notifier.live_feed.wait_ready(), 15)
    config = uvicorn.Config(notifier.app, lifespan="off", log_level="warning")
    server = _QuietServer(config, notifier.close_live)
    task = asyncio.create_task(server.serve(sockets=[listening]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    return Gateway(notifier, port, server, task)


@dataclass
class Stack:
    """Workflow, agent-runner and a dev-mode gateway; `gateway(dev_sign_in=False)` adds one
    (more settings by keyword: `live_sessions_per_user=1`)."""

    nats_url: str
    workflow: WorkflowApp
    agent_runner: AgentRunnerApp
    dev: Gateway
    extra: list[Gateway] = field(default_factory=list)

    async def gateway(self, *, dev_sign_in: bool, **overrides: Any) -> Gateway:
        """Another gateway on the same stack (`overrides`: more `NotifierSettings` fields),
        stopped when the test that added it ends (`_extra_gateways_stopped`)."""
        gateway = await serve_gateway(self.nats_url, dev_sign_in=dev_sign_in, **overrides)
        self.extra.append(gateway)
        return gateway

    async def stop_extra(self) -> None:
        """Stop the gateways `gateway` added."""
        while self.extra:
            await self.extra.pop().stop()

    def api(self, user: str) -> httpx.AsyncClient:
        """An HTTP client of the dev gateway signed in as `user` (another tab, another app)."""
        headers = {"Authorization": f"Bearer {mint_token(SECRET, user)}"}
        return httpx.AsyncClient(base_url=self.dev.url, headers=headers, timeout=20)


@pytest.fixture(autouse=True)
async def _extra_gateways_stopped(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """A gateway a test added to the module's stack is that test's: stopped as it ends, before
    the check that no NATS client a test connected is left open (`tests/conftest.py`)."""
    yield
    if "stack" in request.fixturenames:
        stack: Stack = request.getfixturevalue("stack")
        await stack.stop_extra()


@pytest.fixture(scope="module")
async def stack(nats_url: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """One stack for the module (each test signs in as its own user): starting it is the cost."""
    async with running_stack(nats_url, tmp_path_factory.mktemp("console-stack")) as stack:
        yield stack


@contextlib.asynccontextmanager
async def running_stack(
    nats_url: str, tmp_path: Path, definitions: Path | None = None
) -> AsyncIterator[Stack]:
    """Workflow (the shipped definitions, or those in `definitions`), agent-runner, gateway."""
    extra: dict[str, Any] = {} if definitions is None else {"workflow_definitions_dir": definitions}
    workflow = build_workflow(
        WorkflowSettings(
            nats_url=nats_url,
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'workflow.db'}",
            checker_timeout_seconds=2.0,
            agent_call_timeout_seconds=10.0,
            **extra,
        )
    )
    await workflow.start()
    agent_runner = build_agent_runner(
        AgentRunnerSettings(
            nats_url=nats_url,
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'agent.db'}",
            qdrant_path=tmp_path / "qdrant",
        )
    )
    await agent_runner.start()
    stack = Stack(nats_url, workflow, agent_runner, await serve_gateway(nats_url, dev_sign_in=True))
    yield stack
    await stack.stop_extra()
    await stack.dev.stop()
    await agent_runner.stop()
    await workflow.stop()


def chromium_or_skip() -> Path:
    """Debian's chromium; a skip (or, with BATON_REQUIRE_BROWSER=1, a failure) without it."""
    if CHROMIUM.is_file():
        return CHROMIUM
    reason = f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 makes its absence a failure")
    pytest.skip(reason)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium for the module; each test gets its own context (own storage)."""
    executable = chromium_or_skip()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(executable))
        yield launched
        await launched.close()


ANSWERED = """n => document.querySelectorAll('#chat-log li[data-role=assistant]').length >= n
    && document.getElementById('chat-log').getAttribute('aria-busy') === 'false'"""
ON_STEP = "step => document.getElementById('step-name').dataset.step === step"


class Console:
    """The console page of one browser tab, driven the way a person uses it."""

    def __init__(self, page: Page, url: str) -> None:
        self.page, self.url = page, url
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    async def open(self, url: str | None = None) -> None:
        await self.page.goto(url or self.url)
        await expect(self.page.locator("body")).to_have_attribute("data-ready", "true")

    async def sign_in(self, name: str) -> None:
        await self.page.get_by_label("Your name").fill(name)
        await self.page.get_by_role("button", name="Sign in").click()
        await self.expect_signed_in(name)

    async def expect_signed_in(self, name: str) -> None:
        await expect(self.page.locator("#who")).to_be_visible()
        await expect(self.page.locator("#who-name")).to_have_text(name)

    async def start(self) -> None:
        await self.page.get_by_role("button", name="Start onboarding").click()
        await expect(self.page.locator("#step-name")).to_have_attribute("data-step", "greeting")

    async def live(self) -> None:
        """Wait until the live socket is connected (the gateway said `ready`)."""
        await expect(self.page.locator("#live-status")).to_have_attribute("data-live", "on")

    async def say(self, text: str) -> str:
        """Type `text`, press Enter, and return the agent's answer once it is shown."""
        answers = self.page.locator("#chat-log li[data-role=assistant]")
        before = await answers.count()
        await self.page.get_by_label("Your message").fill(text)
        await self.page.get_by_label("Your message").press("Enter")
        # Checked on every animation frame: expect()'s back-off would make a chat crawl.
        await self.page.wait_for_function(ANSWERED, arg=before + 1, polling="raf")
        return await answers.nth(before).locator(".text").inner_text()

    async def step(self) -> str | None:
        return await self.page.locator("#step-name").get_attribute("data-step")

    async def progress(self) -> int:
        return int(await self.page.locator("#progress").evaluate("p => p.value"))

    async def messages(self) -> list[str]:
        return await self.page.locator("#chat-log li .text").all_inner_texts()

    async def expect_step(self, step: str) -> None:
        await self.page.wait_for_function(ON_STEP, arg=step, polling="raf")


@pytest.fixture
async def console(
    browser: Browser, stack: Stack, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Console]:
    """A fresh tab on the dev gateway; a screenshot is saved in tmp_path after the test."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    expect.set_options(timeout=WAIT_MS)
    tab = Console(await context.new_page(), stack.dev.url)
    yield tab
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    await tab.page.screenshot(path=tmp_path / f"{name}.png", full_page=True)
    await context.close()
    assert tab.errors == [], f"the page raised: {tab.errors}"


async def new_tab(browser: Browser, url: str) -> Console:
    """Another tab with empty storage (as after closing the browser), for `url`."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    return Console(await context.new_page(), url)


def body_of(response: httpx.Response) -> Any:
    assert response.status_code < 400, response.text
    return response.json()
