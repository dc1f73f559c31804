"""Validation of append arguments and the in-memory store's transaction staging."""

from __future__ import annotations

import json
import uuid

import pytest

from baton_eventstore import ConcurrencyConflict, InMemoryEventStore, NewEvent, OutboxMessage
from baton_eventstore.model import json_text, validate_append


def ev(**changes: object) -> NewEvent:
    fields: dict[str, object] = {"event_id": uuid.uuid4(), "type": "t", "payload": {}}
    fields.update(changes)
    return NewEvent(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("events", "field"),
    [
        ([ev(type="")], r"events\[0\]\.type"),
        ([ev(event_id="nope")], r"events\[0\]\.event_id"),
        ([ev(payload=[1])], r"events\[0\]\.payload"),
        ([ev(metadata={"x": {1, 2}})], r"events\[0\]\.metadata"),
        ([ev(payload={"x": float("nan")})], r"events\[0\]\.payload"),
        ([ev(publish=OutboxMessage("", b""))], r"events\[0\]\.publish\.subject"),
        ([ev(publish=OutboxMessage("s", "text"))], r"events\[0\]\.publish\.body"),  # type: ignore[arg-type]
        # NATS would never carry it, and the relay would have retried it for ever.
        (
            [ev(publish=OutboxMessage("s", b"x" * 1_040_000))],
            r"events\[0\]\.publish\.body: 1040000 bytes",
        ),
        ([ev(), "x"], r"events\[1\]"),
    ],
)
def test_malformed_events_name_the_field(events: list[NewEvent], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        validate_append("s", 0, events)


def test_expected_version_must_be_an_int() -> None:
    with pytest.raises(ValueError, match="expected_version"):
        validate_append("s", True, [ev()])  # type: ignore[arg-type]


async def test_commit_rechecks_versions_a_concurrent_transaction_moved() -> None:
    store = InMemoryEventStore()
    with pytest.raises(ConcurrencyConflict):
        async with store.transaction() as tx:
            await tx.append("s", 0, [ev()])
            await store.append("s", 0, [ev()])  # commits first
    assert len(await store.load("s")) == 1
    assert len(await store.read_all()) == 1


@pytest.mark.parametrize("field", ["payload", "metadata"])
def test_a_value_json_refuses_is_refused_in_json_s_words(field: str) -> None:
    value = {"x": [1.0, float("inf")]}
    with pytest.raises(ValueError) as expected:
        json.dumps(value, allow_nan=False)

    with pytest.raises(ValueError) as caught:
        validate_append("s", 0, [ev(**{field: value})])

    assert str(caught.value) == f"events[0].{field}: not JSON-serialisable ({expected.value})"


@pytest.mark.parametrize("value", [{}, {"a": [1, "é", None, 2.5]}, {"k": {"": {}}}])
def test_json_text_is_what_json_dumps_writes(value: dict[str, object]) -> None:
    assert json_text(value) == json.dumps(value)


def test_an_append_encodes_each_payload_once_for_its_check_and_its_statement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from datetime import UTC, datetime

    from baton_eventstore import model
    from baton_eventstore.pg_append import append_params
    from baton_eventstore.pg_batch import Append, batch_statement

    payloads = [{"step": "greeting", "n": 1}, {"text": "привет"}]
    expected = [json.dumps(p) for p in payloads]
    encoded: list[object] = []

    class Counting(json.JSONEncoder):
        def encode(self, o: object) -> str:
            encoded.append(o)
            return super().encode(o)

    def dumps(value: object, **options: object) -> str:
        encoded.append(value)
        return Counting(**options).encode(value)  # type: ignore[arg-type]

    monkeypatch.setattr(model, "_STRICT_JSON", Counting(allow_nan=False))
    monkeypatch.setattr(json, "dumps", dumps)
    events = [ev(payload=payloads[0]), ev(payload=payloads[1])]
    validate_append("s", 0, events)
    now = datetime.now(UTC)
    texts = append_params("s", 0, events, now)[5]
    _, params = batch_statement([Append("s", 0, events, now, None)])

    assert texts == expected
    assert params[6] == expected
    # Each payload encoded once (by the check); both statements reuse the text.
    assert [e for e in encoded if e in payloads] == payloads
