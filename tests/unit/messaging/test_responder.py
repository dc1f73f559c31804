"""The responder's decode -> handle -> reply step, without a broker."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import BaseModel

from baton_contracts import ErrorCode, Kind, Query, RemoteError, ReplyError, ReplyOk, Subject
from baton_contracts.base import ReplyModel
from baton_messaging import MessagingSettings
from baton_messaging.handling import answer, field_path


class Step(BaseModel):
    agent: str


class Plan(BaseModel):
    steps: list[Step]


class MakePlan(Query):
    type: str = "test.make_plan"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.QUERY, name="make_plan")
    reply_model: ClassVar[ReplyModel] = Plan

    steps: list[Step]


async def echo_plan(query: MakePlan) -> Plan:
    if not query.steps:
        raise RemoteError.of(ErrorCode.CONFLICT, "an empty plan")
    if query.steps[0].agent == "crash":
        raise KeyError("internal detail")
    return Plan(steps=query.steps)


async def test_ok_reply_carries_the_result() -> None:
    reply = await answer(MakePlan, echo_plan, b'{"steps": [{"agent": "a"}]}')
    assert reply == ReplyOk(result={"steps": [{"agent": "a"}]})


async def test_remote_error_is_sent_as_raised() -> None:
    reply = await answer(MakePlan, echo_plan, b'{"steps": []}')
    assert isinstance(reply, ReplyError)
    assert reply.error.code is ErrorCode.CONFLICT
    assert reply.error.message == "an empty plan"


async def test_invalid_request_locates_each_problem() -> None:
    reply = await answer(MakePlan, echo_plan, b'{"steps": [{"agent": "a"}, {}], "x": 1}')
    assert isinstance(reply, ReplyError)
    assert reply.error.code is ErrorCode.INVALID
    assert sorted(d.field or "" for d in reply.error.details) == ["steps[1].agent", "x"]


async def test_other_exceptions_are_internal_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    reply = await answer(MakePlan, echo_plan, b'{"steps": [{"agent": "crash"}]}')
    assert isinstance(reply, ReplyError)
    assert reply.error.code is ErrorCode.INTERNAL
    assert "internal detail" not in reply.error.model_dump_json()
    assert "internal detail" in caplog.text


def test_field_paths() -> None:
    assert field_path(("steps", 2, "agent")) == "steps[2].agent"
    assert field_path(()) is None


def test_messaging_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_NATS_URL", "nats://nats:4222")
    monkeypatch.setenv("BATON_REQUEST_TIMEOUT_SECONDS", "1.5")
    settings = MessagingSettings()
    assert settings.nats_url == "nats://nats:4222"
    assert settings.request_timeout_seconds == 1.5
    assert settings.connect_timeout_seconds == 2.0
