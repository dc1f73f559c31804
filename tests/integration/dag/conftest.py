"""DAG workflows through the gateway's seed-004 routes, on the in-process platform."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client

from ...platform_stack import Stack, User, gateway_client, running_stack


@pytest.fixture
def workflow_extra() -> dict[str, Any]:
    """Extra workflow settings; a test overrides this fixture to change them."""
    return {}


@pytest.fixture
async def stack(
    nats_url: str, tmp_path: Path, workflow_extra: dict[str, Any]
) -> AsyncIterator[Stack]:
    async with running_stack(nats_url, tmp_path, **workflow_extra) as stack:
        yield stack


@pytest.fixture
async def http(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with gateway_client(stack) as client:
        yield client


class Author(User):
    """A user who writes and runs DAG workflows."""

    async def create(self, document: dict[str, Any] | str, **headers: str) -> httpx.Response:
        body = document if isinstance(document, str) else json.dumps(document)
        return await self.http.post(
            "/workflows",
            content=body,
            headers={**self.headers, "Content-Type": "application/json", **headers},
        )

    async def run(self, name: str, **body: Any) -> dict[str, Any]:
        response = await self.http.post(f"/workflows/{name}/run", json=body, headers=self.headers)
        assert response.status_code == 202, response.text
        return response.json()  # type: ignore[no-any-return]

    async def wait(self, run_id: str, timeout: float = 20.0) -> dict[str, Any]:
        """The run's detail once it has ended."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            run = await self.get(f"/workflow-runs/{run_id}")
            if run["status"] != "running":
                return run  # type: ignore[no-any-return]
            assert asyncio.get_running_loop().time() < deadline, run
            await asyncio.sleep(0.05)


@pytest.fixture
def author(http: httpx.AsyncClient) -> Author:
    return Author(http, "ada")


@pytest.fixture
async def task_calls(nats_url: str) -> AsyncIterator[list[dict[str, Any]]]:
    """Every `agent.cmd.task` request seen on NATS."""
    seen: list[dict[str, Any]] = []
    nc: Client = await nats.connect(nats_url)

    async def record(msg: Any) -> None:
        seen.append(json.loads(msg.data))

    await nc.subscribe("agent.cmd.task", cb=record)
    await nc.flush()
    yield seen
    await nc.close()
