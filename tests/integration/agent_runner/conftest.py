"""The agent-runner in-process on a real NATS and SQLite, and a client to ask it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql
from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings, scripted_model
from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.settings import AgentRunnerSettings
from baton_contracts.agent_api import AgentReply, RunAgent, TokenUsage, WorkflowSignal
from baton_eventstore import create_engine, migrate
from baton_messaging import request

from .fake_openai import FakeOpenAI, Handler


class CountingFactory(AgentFactory):
    """The scripted model, counting how often it is called."""

    calls: int = 0

    def _model(self, name: str) -> Model:
        inner = scripted_model().function
        assert inner is not None

        async def counted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            type(self).calls += 1
            return await inner(messages, info)  # type: ignore[no-any-return,misc]

        return FunctionModel(counted, model_name="scripted")


def stay_reply(text: str) -> AgentReply:
    """A greeter's reply saying `text` and signalling `stay`: a value for the reply log."""
    return AgentReply(
        message=text,
        workflow_signal=WorkflowSignal(action="stay"),
        usage=TokenUsage(),
        agent="greeter",
        model="scripted",
    )


class Clock:
    """A clock the test sets: the time the stores stamp on what they write."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each test twice: on a SQLite file and on a fresh PostgreSQL database."""
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """The agent-runner's tables on either database (a module may define its own `engine`)."""
    engine = create_engine(database_url)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    yield engine
    await engine.dispose()


def settings(nats_url: str, database_url: str, **extra: Any) -> AgentRunnerSettings:
    folder = make_url(database_url).database
    extra.setdefault("qdrant_path", Path(folder or ".").parent / "qdrant")
    return AgentRunnerSettings(nats_url=nats_url, database_url=database_url, **extra)


def openai_settings(
    nats_url: str, database_url: str, server: FakeOpenAI, **extra: Any
) -> AgentRunnerSettings:
    """Every agent on `openai:fake-model` at the fake server, with no retry."""
    return settings(
        nats_url,
        database_url,
        agent_model="openai:fake-model",
        openai_base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
        model_max_retries=0,
        **extra,
    )


@pytest.fixture
async def counting() -> type[CountingFactory]:
    CountingFactory.calls = 0
    return CountingFactory


@pytest.fixture
async def runner(
    nats_url: str, sqlite_url: str, counting: type[CountingFactory]
) -> AsyncIterator[AgentRunnerApp]:
    agents = counting(OpenAISettings(None, "x", 5.0, 0))
    app = build(settings(nats_url, sqlite_url), agents=agents)
    await app.start()
    yield app
    await app.stop()


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[Any]:
    """Mem0 on a local Qdrant folder of the test's own (a module may define its own `memory`)."""
    memory = await asyncio.to_thread(open_memory, tmp_path / "qdrant", None)
    yield memory
    await asyncio.to_thread(memory.vector_store.client.close)


class ServerStore(Mem0MemoryStore):
    """A store as it runs against a Qdrant server: without the local folder's in-memory index,
    so it lists and counts through Qdrant."""

    def __init__(self, memory: Any) -> None:
        super().__init__(memory)
        self._index = None


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """The fake OpenAI-compatible server, on a free port of 127.0.0.1."""
    server = FakeOpenAI(("127.0.0.1", 0), Handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
async def client(nats_url: str) -> AsyncIterator[Client]:
    nc = await nats.connect(nats_url)
    yield nc
    await nc.close()


class Conversation:
    """One user's conversation with the agents, keeping the history like the workflow would."""

    def __init__(self, nc: Client, user_id: str = "alice") -> None:
        self.nc, self.user_id, self.history, self.turns = nc, user_id, [], 0

    async def say(self, agent: str, step: str, message: str, **extra: Any) -> AgentReply:
        self.turns += 1
        cmd = RunAgent(
            user_id=self.user_id,
            agent=agent,
            instance_id="i-1",
            current_step=step,
            history=self.history[-20:],
            message=message,
            idempotency_key=extra.pop("key", f"k-{self.turns}"),
            # The workflow service tells the agent whether the step could finish now; these
            # tests drive the agents alone, so the step is ready unless a test says otherwise.
            can_complete=extra.pop("can_complete", True),
            **extra,
        )
        reply = await request(self.nc, cmd, timeout=10.0)
        assert isinstance(reply, AgentReply)
        self.history += [
            {"role": "user", "text": message},
            {"role": "assistant", "text": reply.message},
        ]
        return reply
