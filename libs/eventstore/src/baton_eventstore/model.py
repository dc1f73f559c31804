"""The values an event store takes and returns, its errors, and input validation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any
from uuid import UUID


@dataclass(frozen=True)
class OutboxMessage:
    """What to put on NATS after the commit; the message id is the event id."""

    subject: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NewEvent:
    """An event to append; `publish` (if set) is written to the outbox in the same transaction."""

    event_id: UUID
    type: str
    payload: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    publish: OutboxMessage | None = None

    @cached_property
    def payload_text(self) -> str:
        """The payload as JSON text, encoded once: the append's check (`validate_append`) and
        PostgreSQL's statement, which takes its JSON columns as text, share it. Raises
        TypeError or ValueError for a payload JSON cannot hold (NaN, a set, an object)."""
        return _STRICT_JSON.encode(self.payload)


@dataclass(frozen=True)
class RecordedEvent:
    """An event as stored: its stream version (from 1) and global position."""

    stream_id: str
    version: int
    position: int
    event_id: UUID
    type: str
    payload: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: datetime


@dataclass(frozen=True)
class OutboxRow:
    """One outbox row waiting to be published."""

    id: int
    event_id: UUID
    subject: str
    body: bytes
    headers: dict[str, str]
    created_at: datetime | None = None
    """When it was committed (the writer's clock, UTC), None if not known: no broker may
    hold it from before then, which tells the relay how far back a first publish can be."""


def as_utc(value: datetime) -> datetime:
    """A stored timestamp with its zone: SQLite keeps none, and every one is written in UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class ConcurrencyConflict(Exception):
    """The stream was not at the expected version; nothing was written."""

    def __init__(self, stream_id: str, expected_version: int, actual_version: int) -> None:
        super().__init__(
            f"stream {stream_id!r}: expected version {expected_version}, "
            f"actual version {actual_version}"
        )
        self.stream_id = stream_id
        self.expected_version = expected_version
        self.actual_version = actual_version


class StartByPassed(Exception):
    """The append was still waiting to start (for a free writer, for the write lock) when its
    `start_by` came: it was dropped before its statement was sent, and nothing was written."""

    def __init__(self, stream_id: str, start_by: datetime) -> None:
        super().__init__(
            f"stream {stream_id!r}: the append had not started by {start_by.isoformat()} "
            "(its start-by); it was dropped, nothing written"
        )
        self.stream_id = stream_id
        self.start_by = start_by


def check_start_by(start_by: datetime | None) -> None:
    """Refuse a start-by without a time zone: it is compared with the UTC clock, and naive
    datetimes cannot be (the comparison would fail in the writer, for the whole batch)."""
    if start_by is not None and start_by.tzinfo is None:
        raise ValueError(f"start_by: must be timezone-aware, got {start_by!r}")


def refuse_if_late(stream_id: str, start_by: datetime | None) -> None:
    """Raise StartByPassed when `start_by` is set and has come (one clock read, only then)."""
    if start_by is not None and datetime.now(UTC) >= start_by:
        raise StartByPassed(stream_id, start_by)


class DuplicateEventId(ValueError):
    """An event id is already stored (event ids are unique across the whole store)."""


_STRICT_JSON = json.JSONEncoder(allow_nan=False)
"""The encoder `json.dumps(value, allow_nan=False)` builds anew on every call, built once: it
holds no state between calls, and every append checks its payloads with it."""


def json_text(value: dict[str, Any]) -> str:
    """`json.dumps(value)`, with `{}` (most events' metadata, most outbox headers) not encoded:
    an append's statement takes its JSON columns as text."""
    return json.dumps(value) if value else "{}"


RELAY_PAYLOAD_BYTES = 1024 * 1024
"""The `max_payload` a NATS server must take for a relay to publish every outbox row: NATS's
default. A service that relays checks its server at start (`start_broker(min_payload=...)`)."""

MAX_PUBLISH_BYTES = RELAY_PAYLOAD_BYTES - 16 * 1024
"""The largest outbox body an append takes: `RELAY_PAYLOAD_BYTES`, less room for the headers.
A larger one could never be published, and the relay, which publishes in order, would have
retried it for ever while every later event of every user waited."""

# The width of the `stream_id`, `type` and outbox `subject` columns (tables.py). PostgreSQL
# refuses longer values and SQLite keeps them; checking here makes every backend agree.
MAX_NAME_LENGTH = 255


def validate_append(stream_id: str, expected_version: int, events: Sequence[NewEvent]) -> None:
    """Raise ValueError naming the field when an append's arguments are malformed."""
    if not isinstance(stream_id, str) or not stream_id.strip():
        raise ValueError("stream_id: must be a non-empty string")
    _check_name("stream_id", stream_id)
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise ValueError(f"expected_version: must be an int, got {expected_version!r}")
    if expected_version < 0:
        raise ValueError(f"expected_version: must be >= 0, got {expected_version}")
    if not events:
        raise ValueError("events: must contain at least one event")
    seen: set[UUID] = set()
    for index, event in enumerate(events):
        _validate_event(index, event)
        if event.event_id in seen:
            raise ValueError(f"events[{index}].event_id: duplicate id {event.event_id}")
        seen.add(event.event_id)


def _validate_event(index: int, event: NewEvent) -> None:
    if not isinstance(event, NewEvent):
        raise ValueError(f"events[{index}]: must be a NewEvent, got {type(event).__name__}")
    if not isinstance(event.event_id, UUID):
        raise ValueError(f"events[{index}].event_id: must be a UUID, got {event.event_id!r}")
    if not isinstance(event.type, str) or not event.type:
        raise ValueError(f"events[{index}].type: must be a non-empty string")
    _check_name(f"events[{index}].type", event.type)
    for name in ("payload", "metadata"):
        value = getattr(event, name)
        if not isinstance(value, dict):
            raise ValueError(f"events[{index}].{name}: must be a dict, got {type(value).__name__}")
        try:
            if name == "payload":
                text = event.payload_text  # encoded here, kept for the statement
            elif value:  # `{}` is JSON: most events' metadata needs no check
                text = _STRICT_JSON.encode(value)
            else:
                continue
        except (TypeError, ValueError) as exc:
            raise ValueError(f"events[{index}].{name}: not JSON-serialisable ({exc})") from None
        if _nul_in_json(text):
            raise ValueError(f"events[{index}].{name}: {NUL_PROBLEM}")
    if event.publish is not None:
        _validate_publish(index, event.publish)


def _validate_publish(index: int, message: OutboxMessage) -> None:
    if not isinstance(message.subject, str) or not message.subject:
        raise ValueError(f"events[{index}].publish.subject: must be a non-empty string")
    subject = message.subject
    _check_name(f"events[{index}].publish.subject", subject)
    # String methods, not a regular expression: every append's every event comes here.
    # `isprintable` is False for control characters and every space but " ".
    if (
        not subject.isprintable()
        or " " in subject
        or ".." in subject
        or subject.startswith(".")
        or subject.endswith(".")
    ):
        # NATS refuses to publish it, every time: the relay, which publishes in order, would
        # hold every later event of every user behind it.
        raise ValueError(
            f"events[{index}].publish.subject: {message.subject!r} is not a NATS subject "
            "(no spaces or control characters, no empty token between dots)"
        )
    if not isinstance(message.body, bytes):
        raise ValueError(f"events[{index}].publish.body: must be bytes")
    if len(message.body) > MAX_PUBLISH_BYTES:
        raise ValueError(
            f"events[{index}].publish.body: {len(message.body)} bytes; a NATS message carries "
            f"at most {MAX_PUBLISH_BYTES} here"
        )
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in message.headers.items()):
        raise ValueError(f"events[{index}].publish.headers: keys and values must be strings")
    for key, value in message.headers.items():
        if not (key and key.isascii() and key.isprintable()) or " " in key or ":" in key:
            raise ValueError(
                f"events[{index}].publish.headers: {key!r} is not a header name (printable "
                "ASCII, no spaces or ':')"
            )
        if "\r" in value or "\n" in value or "\x00" in value:
            raise ValueError(
                f"events[{index}].publish.headers.{key}: must not hold a line break or a "
                "NUL character"
            )


def _check_name(name: str, value: str) -> None:
    if len(value) > MAX_NAME_LENGTH:
        raise ValueError(f"{name}: at most {MAX_NAME_LENGTH} characters, got {len(value)}")
    if "\x00" in value:
        raise ValueError(f"{name}: {NUL_PROBLEM}")


NUL_PROBLEM = "must not hold a NUL character (U+0000): PostgreSQL cannot store one"
"""SQLite keeps a NUL and PostgreSQL refuses it (in text, and as `\\u0000` in jsonb):
refused here, every backend agrees, and the caller learns which field it was."""


def _nul_in_json(text: str) -> bool:
    """A NUL character in JSON text (always written `\\u0000`); a backslash before that
    escape makes it the text `\\u0000`, which is no NUL."""
    at = text.find("\\u0000")
    while at != -1:
        backslashes = 0
        while at - backslashes - 1 >= 0 and text[at - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return True
        at = text.find("\\u0000", at + 1)
    return False
