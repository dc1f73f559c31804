"""The platform's own catalog keeps the contract rules: unique types, one stream per subject."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

import pytest
from pydantic import BaseModel

from baton_contracts import OWNERS, REGISTRY, STREAMS, Delivery, Kind, Message, message_type
from baton_contracts.registry import subject_matches

SAMPLE_VALUES: dict[str, object] = {
    "event_id": UUID("00000000-0000-4000-8000-000000000001"),
    "occurred_at": datetime(2026, 11, 22, 12, 0, tzinfo=UTC),
    "completed_at": datetime(2026, 11, 22, 12, 5, tzinfo=UTC),
    "user_id": "alice",
    "workflow_id": "onboarding",
    "instance_id": "i-1",
    "initial_step": "greeting",
    "previous_step": "greeting",
    "current_step": "discovery",
    "progress": 0.33,
    "reason": "missing criteria",
    "command_id": "c-1",
    "agent": "greeter",
    "message": "hi",
    "idempotency_key": "k-1",
    "signal": {"action": "complete_step", "data": {"user_name": "Alex"}},
    "step": "discovery",
    "widget_type": "list_input",
    "client_message_id": "m-1",
    "user_text": "work and health",
    "agent_text": "Noted: work, health.",
    "text": "work and health",
    "name": "research-and-summarize",
    "workflow": "research-and-summarize",
    "version_id": "research-and-summarize@1",
    "from_version": "research-and-summarize@1",
    "to_version": "research-and-summarize@2",
    "source": '{"name": "research-and-summarize", "steps": [{"id": "a", "prompt": "hi"}]}',
    "run_id": "r-1",
    "step_id": "research",
    "prompt": "Search the latest developments in AI agents",
    "mode": "live",
    "status": "success",
}


def sample(model: type[Message]) -> Message:
    """An instance of `model` built from its required fields."""
    fields = {
        name: SAMPLE_VALUES[name] for name, info in model.model_fields.items() if info.is_required()
    }
    return model(**fields)


MODELS = list(REGISTRY)


def test_every_type_string_is_unique() -> None:
    types = [message_type(m) for m in MODELS]
    assert len(types) == len(set(types)), types


@pytest.mark.parametrize("model", MODELS, ids=message_type)
def test_every_model_round_trips_through_json(model: type[Message]) -> None:
    message = sample(model)
    assert REGISTRY.decode(message.to_bytes()) == message


@pytest.mark.parametrize("model", MODELS, ids=message_type)
def test_every_subject_follows_owner_kind_name(model: type[Message]) -> None:
    subject = sample(model).wire_subject()
    owner, kind, name, *_ = subject.split(".")
    assert owner in OWNERS
    assert kind in {k.value for k in Kind}
    assert name == model.subject.name


@pytest.mark.parametrize("model", MODELS, ids=message_type)
def test_stream_messages_fall_in_exactly_one_stream_and_requests_in_none(
    model: type[Message],
) -> None:
    subject = sample(model).wire_subject()
    captured = [s.name for s in STREAMS if any(subject_matches(p, subject) for p in s.subjects)]
    if model.delivery is Delivery.STREAM:
        assert len(captured) == 1, (subject, captured)
    else:
        # A stream capturing a request subject would answer the requester with a PubAck.
        assert captured == [], (subject, captured)


def test_stream_names_are_owner_and_kind() -> None:
    for stream in STREAMS:
        owner, kind = {(p.split(".")[0], p.split(".")[1]) for p in stream.subjects}.pop()
        assert stream.name == f"{owner}_{kind}".upper()


@pytest.mark.parametrize("model", MODELS, ids=message_type)
def test_request_models_name_their_reply(model: type[Message]) -> None:
    if model.delivery is Delivery.REQUEST:
        assert issubclass(model.reply_model, BaseModel)
