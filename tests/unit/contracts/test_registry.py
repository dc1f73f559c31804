"""The registry's own rules, on models declared here, so each rule is seen to fail."""

from __future__ import annotations

from typing import ClassVar, Literal

import pytest

from baton_contracts import (
    Event,
    Kind,
    MalformedMessage,
    Registry,
    Retention,
    Subject,
    UnknownMessageType,
)
from baton_contracts.registry import subject_matches


class Ping(Event):
    type: Literal["test.ping"] = "test.ping"
    subject: ClassVar[Subject] = Subject(
        owner="workflow", kind=Kind.EVT, name="ping", keys=("key",)
    )
    key: str


class PingAgain(Event):
    type: Literal["test.ping"] = "test.ping"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.EVT, name="ping2")


class Order(Event):
    type: Literal["test.order"] = "test.order"
    subject: ClassVar[Subject] = Subject(owner="trigger", kind=Kind.CMD, name="order")


def test_a_type_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        Registry([Ping, PingAgain])


def test_decode_names_an_unknown_type() -> None:
    with pytest.raises(UnknownMessageType, match="test.nope"):
        Registry([Ping]).decode(b'{"type": "test.nope"}')


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "no string field 'type'"),
        (b'{"type": 3}', "no string field 'type'"),
        (b'{"type": "test.ping", "key": "k"}', "event_id"),
    ],
)
def test_decode_says_what_is_malformed(raw: bytes, problem: str) -> None:
    with pytest.raises(MalformedMessage, match=problem):
        Registry([Ping]).decode(raw)


def test_unknown_fields_are_refused() -> None:
    raw = (
        b'{"type": "test.ping", "key": "k", "user_id": "u", "surprise": 1,'
        b' "event_id": "00000000-0000-4000-8000-000000000001",'
        b' "occurred_at": "2026-11-22T00:00:00Z"}'
    )
    with pytest.raises(MalformedMessage, match="surprise"):
        Registry([Ping]).decode(raw)


def test_subject_keys_are_filled_from_fields_and_checked() -> None:
    subject = Ping.subject
    assert subject.pattern == "workflow.evt.ping.*"

    class Stub:
        key = "a.b"

    with pytest.raises(ValueError, match="unfit for a subject"):
        subject.render(Stub())  # type: ignore[arg-type]


def test_streams_group_by_owner_and_kind_and_commands_are_work_queues() -> None:
    streams = {s.name: s for s in Registry([Ping, Order]).streams()}
    assert streams["WORKFLOW_EVT"].subjects == ("workflow.evt.ping.*",)
    assert streams["WORKFLOW_EVT"].retention is Retention.LIMITS
    assert streams["TRIGGER_CMD"].retention is Retention.WORK_QUEUE


@pytest.mark.parametrize(
    ("pattern", "subject", "matches"),
    [
        ("a.b.*", "a.b.c", True),
        ("a.b.*", "a.b.c.d", False),
        ("a.>", "a.b.c", True),
        ("a.>", "a", False),
        ("a.b", "a.b", True),
        ("a.*.c", "a.x.d", False),
    ],
)
def test_subject_matching_follows_nats_wildcards(pattern: str, subject: str, matches: bool) -> None:
    assert subject_matches(pattern, subject) is matches
