"""A notifier built with fakes: a scripted requester, a switchable NATS connection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict

from baton_auth import mint_token
from baton_contracts import Command, Kind, Query, Subject
from baton_contracts.base import ReplyModel
from baton_contracts.dag_runs import DagRunAccepted, StartDagRun
from baton_notifier.bootstrap import Notifier, build
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity, api_router
from baton_notifier.service.ports import Again
from baton_notifier.settings import NotifierSettings

SECRET = "unit-test-secret-that-is-32-bytes!"
MAX_BODY = 64


class ThingReply(BaseModel):
    thing_id: str
    user_id: str


class StartThing(Command):
    """A contract-shaped command only these tests use."""

    type: str = "test.start_thing"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.CMD, name="start_thing")
    reply_model: ClassVar[ReplyModel] = ThingReply

    thing_id: str
    size: int = 1


class StartThingBody(BaseModel):
    model_config = ConfigDict(extra="allow")  # lets a test smuggle `user_id` in the body

    thing_id: str
    size: int = 1


class FakeRequester:
    """Answers with whatever `answer` returns or raises; records what was sent."""

    def __init__(self) -> None:
        self.sent: list[Query | Command] = []
        self.timeouts: list[float] = []
        self.resend_afters: list[float | None] = []  # of each `request_json`
        self.agains: list[Again] = []  # of each request
        self.answer: Callable[[Query | Command], BaseModel] = self._echo
        self.raw: bytes | None = None

    @staticmethod
    def _echo(message: Query | Command) -> BaseModel:
        assert isinstance(message, StartThing)
        return ThingReply(thing_id=message.thing_id, user_id=message.user_id)

    async def request(
        self, message: Query | Command, *, timeout: float, again: Again = Again.NEVER
    ) -> BaseModel:
        self.agains.append(again)
        self.sent.append(message)
        self.timeouts.append(timeout)
        return self.answer(message)

    async def request_json(
        self,
        message: Query | Command,
        *,
        timeout: float,
        resend_after: float | None = None,
        again: Again = Again.NEVER,
    ) -> bytes:
        """As the owner sends it: the JSON of its reply model, or `raw` when that is set."""
        self.resend_afters.append(resend_after)
        if self.raw is None:
            reply = await self.request(message, timeout=timeout, again=again)
            return reply.model_dump_json().encode()
        self.agains.append(again)
        self.sent.append(message)
        self.timeouts.append(timeout)
        return self.raw


class FakeConnection:
    def __init__(self) -> None:
        self.is_connected = True


def add_thing_route(app: FastAPI) -> None:
    """`POST /api/things`: a route forwarding `StartThing`, as real routes will."""
    router = api_router()

    @router.post("/things")
    async def start_thing(
        body: StartThingBody, identity: CurrentIdentity, forwarder: CurrentForwarder
    ) -> Any:
        return await forwarder.forward(StartThing, identity, body.model_dump())

    app.include_router(router)


@pytest.fixture
def requester() -> FakeRequester:
    return FakeRequester()


@pytest.fixture
def connection() -> FakeConnection:
    return FakeConnection()


@pytest.fixture
def notifier(requester: FakeRequester, connection: FakeConnection) -> Notifier:
    settings = NotifierSettings(
        jwt_secret=SECRET, request_timeout_seconds=1.5, max_body_bytes=MAX_BODY
    )
    built = build(settings, requester=requester, connection=connection)
    add_thing_route(built.app)
    return built


@pytest.fixture
async def client(notifier: Notifier) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        yield http


@pytest.fixture
def start_thing() -> type[StartThing]:
    return StartThing


@pytest.fixture
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_token(SECRET, 'alice', project_id='p1')}"}


def run_accepted(message: Query | Command) -> BaseModel:
    """A `FakeRequester.answer`: the workflow service's answer to a DAG run's start."""
    assert isinstance(message, StartDagRun)
    return DagRunAccepted(
        run_id="r1",
        workflow=message.name,
        version=1,
        version_id=f"{message.name}@1",
        mode="live",
        status="running",
    )
