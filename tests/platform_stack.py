"""The platform in one process on one real NATS: workflow, agent-runner and gateway.

Each service is built by its own `bootstrap.build` with embedded defaults (SQLite files and a
Qdrant folder under a test's tmp_path, the scripted model), exactly as `baton up` wires them;
only the process boundary is missing. Suites import this module from their conftest.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from baton_agent_runner.bootstrap import AgentRunnerApp
from baton_agent_runner.bootstrap import build as build_agent_runner
from baton_agent_runner.settings import AgentRunnerSettings
from baton_auth import mint_token
from baton_notifier.bootstrap import Notifier as NotifierApp
from baton_notifier.bootstrap import build as build_notifier
from baton_notifier.settings import NotifierSettings
from baton_workflow.bootstrap import WorkflowApp
from baton_workflow.bootstrap import build as build_workflow
from baton_workflow.settings import WorkflowSettings

SECRET = "onboarding-http-tests-secret-32-bytes!"


@dataclass
class Stack:
    """Handles on the running services, and how to start the agent-runner again."""

    nats_url: str
    folder: Path
    workflow: WorkflowApp
    notifier: NotifierApp
    agent_runner: AgentRunnerApp | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def agent_settings(self) -> AgentRunnerSettings:
        return AgentRunnerSettings(
            nats_url=self.nats_url,
            database_url=f"sqlite+aiosqlite:///{self.folder / 'agent.db'}",
            qdrant_path=self.folder / "qdrant",
            # A test that is not about store timeouts should not fail on a CI machine's
            # stall: one SQLite call passed the 4 s default once under the full suite's load.
            **{"store_timeout_seconds": 8.0, **self.extra},
        )

    async def start_agent_runner(self) -> AgentRunnerApp:
        self.agent_runner = build_agent_runner(self.agent_settings())
        await self.agent_runner.start()
        return self.agent_runner

    async def stop_agent_runner(self) -> None:
        if self.agent_runner is not None:
            await self.agent_runner.stop()
            self.agent_runner = None


def workflow_settings(nats_url: str, folder: Path, **extra: Any) -> WorkflowSettings:
    return WorkflowSettings(
        nats_url=nats_url,
        database_url=extra.pop("database_url", f"sqlite+aiosqlite:///{folder / 'workflow.db'}"),
        checker_timeout_seconds=2.0,
        agent_call_timeout_seconds=extra.pop("agent_call_timeout_seconds", 10.0),
        **extra,
    )


@asynccontextmanager
async def running_stack(
    nats_url: str,
    folder: Path,
    *,
    gateway: dict[str, Any] | None = None,
    agent_runner: bool = True,
    **workflow_extra: Any,
) -> AsyncIterator[Stack]:
    """Workflow, gateway (with `gateway` settings) and agent-runner (unless told not to)
    started on `nats_url`, stopped on exit."""
    workflow = build_workflow(workflow_settings(nats_url, folder, **workflow_extra))
    await workflow.start()
    notifier = build_notifier(
        NotifierSettings(
            nats_url=nats_url,
            jwt_secret=SECRET,
            **{"chat_timeout_seconds": 15.0, **(gateway or {})},
        )
    )
    await notifier.start()
    assert notifier.link is not None
    await notifier.link.wait_started()
    stack = Stack(nats_url, folder, workflow, notifier)
    if agent_runner:
        await stack.start_agent_runner()
    try:
        yield stack
    finally:
        await stack.stop_agent_runner()
        await notifier.stop()
        await workflow.stop()


@asynccontextmanager
async def gateway_client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client talking to the gateway app in process."""
    transport = httpx.ASGITransport(app=stack.notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        yield client


class User:
    """One signed-in user of the HTTP API."""

    def __init__(self, http: httpx.AsyncClient, name: str) -> None:
        self.http, self.name = http, name
        self.headers = {"Authorization": f"Bearer {mint_token(SECRET, name)}"}
        self.instance = ""

    async def start(self, workflow_id: str = "onboarding") -> dict[str, Any]:
        response = await self.http.post(
            "/api/workflows", json={"workflow_id": workflow_id}, headers=self.headers
        )
        assert response.status_code in (200, 201), response.text
        self.instance = response.json()["instance_id"]
        return response.json()  # type: ignore[no-any-return]

    async def send(self, text: str, client_message_id: str | None = None) -> httpx.Response:
        body = {"text": text, "client_message_id": client_message_id or uuid.uuid4().hex}
        return await self.http.post(
            f"/api/workflows/{self.instance}/messages", json=body, headers=self.headers
        )

    async def say(self, text: str) -> dict[str, Any]:
        """Send and expect a 200; the reply body."""
        response = await self.send(text)
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    async def get(self, path: str, **params: Any) -> Any:
        response = await self.http.get(path, headers=self.headers, params=params)
        assert response.status_code == 200, response.text
        return response.json()

    async def step(self) -> str:
        return (await self.get(f"/api/workflows/{self.instance}"))["current_step"]  # type: ignore[no-any-return]
