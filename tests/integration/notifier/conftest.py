"""The notifier against a real NATS server, with a fake owner answering a contract command."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import httpx
import pytest
from faststream.nats import NatsBroker
from pydantic import BaseModel

from baton_auth import mint_token
from baton_contracts import Command, ErrorCode, ErrorDetail, Kind, RemoteError, Subject
from baton_contracts.base import ReplyModel
from baton_messaging.broker import MessagingSettings, build_broker, start_broker
from baton_messaging.responders import respond
from baton_notifier.bootstrap import Notifier, build
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity, api_router
from baton_notifier.settings import NotifierSettings

SECRET = "integration-secret-of-32-bytes-ok!"
TIMEOUT = 0.5


class ThingReply(BaseModel):
    thing_id: str
    user_id: str


class StartThing(Command):
    """A contract-shaped command only these tests use; `thing_id` scripts the fake owner."""

    type: str = "test.notifier_start_thing"
    subject: ClassVar[Subject] = Subject(
        owner="workflow", kind=Kind.CMD, name="notifier_test_start_thing"
    )
    reply_model: ClassVar[ReplyModel] = ThingReply

    thing_id: str


class SilentThing(StartThing):
    """Same shape, on a subject nobody answers."""

    type: str = "test.notifier_silent_thing"
    subject: ClassVar[Subject] = Subject(
        owner="workflow", kind=Kind.CMD, name="notifier_test_silent_thing"
    )


class FakeOwner:
    """Answers `StartThing` by its `thing_id`: an error code's name, `slow`, or success."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def handle(self, command: StartThing) -> ThingReply:
        if command.thing_id == "slow":
            await self.release.wait()
        elif command.thing_id in {code.value for code in ErrorCode}:
            details = [ErrorDetail(field="thing_id", message="scripted")]
            raise RemoteError.of(ErrorCode(command.thing_id), "scripted failure", details)
        return ThingReply(thing_id=command.thing_id, user_id=command.user_id)


def add_thing_routes(notifier: Notifier) -> None:
    router = api_router()

    @router.post("/things/{thing_id}")
    async def start(thing_id: str, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
        return await forwarder.forward(StartThing, identity, thing_id=thing_id)

    @router.post("/silent/{thing_id}")
    async def silent(thing_id: str, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
        return await forwarder.forward(SilentThing, identity, thing_id=thing_id)

    notifier.app.include_router(router)


def settings_for(nats_url: str, **overrides: Any) -> NotifierSettings:
    return NotifierSettings(
        nats_url=nats_url, jwt_secret=SECRET, request_timeout_seconds=TIMEOUT, **overrides
    )


@pytest.fixture(scope="module")
async def fake_owner(nats_url: str) -> AsyncIterator[FakeOwner]:
    owner = FakeOwner()
    broker: NatsBroker = build_broker(MessagingSettings(nats_url=nats_url), "fake-owner")
    respond(broker, StartThing, owner.handle, queue="fake-owner")
    await start_broker(broker)
    yield owner
    owner.release.set()
    await broker.stop()


@contextlib.asynccontextmanager
async def started(settings: NotifierSettings) -> AsyncIterator[Notifier]:
    """A notifier built on `settings`, connected to NATS, stopped at the end."""
    built = build(settings)
    await built.start()
    assert built.link is not None
    await asyncio.wait_for(built.link.wait_started(), 15)
    try:
        yield built
    finally:
        await built.stop()


@pytest.fixture(scope="module")
async def notifier(nats_url: str) -> AsyncIterator[Notifier]:
    async with started(settings_for(nats_url, max_body_bytes=1024)) as built:
        add_thing_routes(built)
        yield built


@pytest.fixture
async def client(notifier: Notifier) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        yield http


@pytest.fixture
def make_settings() -> Callable[..., NotifierSettings]:
    return settings_for


@pytest.fixture
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_token(SECRET, 'alice')}"}
