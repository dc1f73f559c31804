"""The onboarding suite runs on the in-process platform of `platform_stack`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client

from baton_contracts.agent_api import (
    AgentReply,
    Count,
    CountInboxItems,
    CountMemoryFacts,
    RunAgent,
)
from baton_messaging import MessagingSettings, build_broker, respond, start_broker

from ...platform_stack import SECRET, Stack, User, gateway_client, running_stack, workflow_settings

__all__ = ["SECRET", "Stack", "User", "workflow_settings"]


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


@pytest.fixture
async def agent_calls(nats_url: str) -> AsyncIterator[list[bytes]]:
    """Every `agent.cmd.run` request seen on NATS (a plain subscriber beside the responders)."""
    seen: list[bytes] = []
    nc: Client = await nats.connect(nats_url)

    async def record(msg: Any) -> None:
        seen.append(msg.data)

    await nc.subscribe("agent.cmd.run", cb=record)
    await nc.flush()
    yield seen
    await asyncio.sleep(0)
    await nc.close()


@asynccontextmanager
async def agent_answering(
    nats_url: str, answer: Callable[[RunAgent], Awaitable[AgentReply]], counts: int | None = None
) -> AsyncIterator[None]:
    """`answer` serves `agent.cmd.run` (in the agent-runner's queue group) while the block runs;
    given `counts`, so do the checkers' count queries, each answered `counts` (a stand-in for
    a stopped agent-runner: a checker that gets no answer refuses the turn)."""
    broker = build_broker(MessagingSettings(nats_url=nats_url), "test-agent")
    respond(broker, RunAgent, answer, queue="agent")
    if counts is not None:

        async def count(query: CountMemoryFacts | CountInboxItems) -> Count:
            return Count(count=counts)

        respond(broker, CountMemoryFacts, count, queue="agent")
        respond(broker, CountInboxItems, count, queue="agent")
    await start_broker(broker)
    try:
        yield
    finally:
        await broker.stop()


def definitions_with(folder: Path, name: str, text: str) -> dict[str, Any]:
    """`workflow_extra` for a folder of the shipped definitions plus `name` holding `text`."""
    from baton_workflow.settings import SHIPPED_DEFINITIONS

    folder.mkdir()
    for shipped in SHIPPED_DEFINITIONS.glob("*.yaml"):
        (folder / shipped.name).write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / name).write_text(text, encoding="utf-8")
    return {"workflow_definitions_dir": folder}


async def inbox(user: User) -> list[str]:
    """The contents of the user's inbox, newest first."""
    return [item["content"] for item in (await user.get("/api/inbox"))["items"]]
