"""Live events as a client sees them: frames, filters, close codes and replay decisions (no I/O).

A frame is one JSON object. Events are `{"type", "seq", "epoch", "occurred_at", "payload"}`
where `payload` is the contract event exactly as it was published; the gateway also sends
`ready`, `resync`, `pong` and `error` frames. A position is a seq and the epoch of the stream it
counts in (`stream_position.py`). `docs/live-events.md` is the reference for clients.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from json.encoder import encode_basestring_ascii
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from baton_contracts.base import fits_a_token

CLOSE_GOING_AWAY = 1001
"""The gateway is stopping: reconnect (to any replica) with `last_seq`."""
CLOSE_TOO_MANY_SESSIONS = 1008
"""The user holds `BATON_LIVE_SESSIONS_PER_USER` live connections on this gateway already: close
one, then connect again."""
CLOSE_INTERNAL = 1011
"""Something broke on the gateway side: reconnect with `last_seq`."""
CLOSE_TRY_AGAIN = 1013
"""The stored events could not be read for a while (NATS is away): reconnect later with
`last_seq`; nothing is lost, the replay starts from there."""
CLOSE_BAD_REQUEST = 4400
"""A query parameter is malformed (`last_seq`, `instance_id`); reconnecting as is will not help."""
CLOSE_UNAUTHORIZED = 4401
"""No token, a bad or expired one, or the token expired while connected: get a new token, then
reconnect (with `last_seq`, to miss nothing)."""
CLOSE_TOO_SLOW = 4408
"""The client fell `live_queue_size` frames behind: reconnect with `last_seq` to replay the rest."""

TOO_SLOW_REASON = "resync: too slow, frames were dropped; reconnect with last_seq"
GOING_AWAY_REASON = "gateway stopping; reconnect with last_seq"
INTERNAL_REASON = "gateway error; reconnect with last_seq"
TOKEN_EXPIRED_REASON = "token expired; get a new token and reconnect with last_seq"
HISTORY_AWAY_REASON = "stored events unavailable; reconnect later with last_seq"
STREAM_RESET_REASON = "the events stream was reset; reconnect with last_seq to resync"


def too_many_sessions_reason(limit: int) -> str:
    """Why a live connection was refused: the user holds `limit` open already."""
    return (
        f"too many live connections: at most {limit} per user (WebSocket and SSE together); "
        "close one first"
    )


INSTANCE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""What `parse_instance_id` takes, for the API's documentation (absent: every instance)."""
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

SSE_EVENT_NAMES = {"workflow.notify": "workflow_notify"}
"""SSE `event:` names that differ from the frame type (seed 004 names notify `workflow_notify`)."""


_Text = Annotated[str, StringConstraints(min_length=1)]


class _Envelope(BaseModel):
    """The fields every event on the stream has; the rest of the payload is only checked as JSON."""

    model_config = ConfigDict(frozen=True)

    type: _Text
    user_id: _Text
    instance_id: _Text
    occurred_at: _Text


_json_string = encode_basestring_ascii  # what `json.dumps` does for a str, minus its overhead


class MalformedEvent(ValueError):
    """A message on the events stream is not a JSON object with the fields every event has."""


class BadLiveRequest(ValueError):
    """A client asked for live events with malformed parameters; the message says which."""


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """One contract event with its stream sequence, its frame encoded once for every socket."""

    seq: int
    type: str
    user_id: str
    instance_id: str
    frame: str
    epoch: str | None = None
    """The epoch of the stream `seq` counts in (None when the stream reports none)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """A frame that is not an event: `ready`, `resync`, `pong` or `error`."""

    type: str
    frame: str
    seq: int | None = None
    """The position a client resumes from after this frame (SSE `id:`), if it has one."""
    epoch: str | None = None
    """The epoch of the stream `seq` counts in, when known."""


Frame = LiveEvent | Notice


@dataclass(frozen=True, slots=True)
class Filter:
    """Which events a socket may see: its user's, narrowed to one instance when it asked."""

    user_id: str
    instance_id: str | None = None

    def allows(self, event: LiveEvent) -> bool:
        """True for an event of this user (and of the instance, when one is named)."""
        return event.user_id == self.user_id and (
            self.instance_id is None or event.instance_id == self.instance_id
        )


def parse_event(seq: int, body: bytes, epoch: str | None = None) -> LiveEvent:
    """The live event for a stream message of the stream `epoch` (left out of the frame when
    None); its payload is embedded verbatim, never re-encoded."""
    try:
        text = body.decode()
        # pydantic's parser checks the whole body as JSON but builds only the four strings:
        # about half the CPU of `json.loads`, which builds every field of the payload.
        fields = _Envelope.model_validate_json(body)
    except ValidationError as exc:
        if any(error["type"] == "json_invalid" for error in exc.errors()):
            raise MalformedEvent(f"event at seq {seq} is not JSON") from None
        raise MalformedEvent(
            f"event at seq {seq} is not a JSON object with type, user_id, instance_id and "
            "occurred_at strings"
        ) from None
    except ValueError as exc:
        raise MalformedEvent(f"event at seq {seq} is not UTF-8: {exc}") from None
    # An epoch is digits (`stream_position.epoch_of`): nothing in it to escape.
    stream = "" if epoch is None else f'"epoch":"{epoch}",'
    frame = (
        f'{{"type":{_json_string(fields.type)},"seq":{seq},{stream}'
        f'"occurred_at":{_json_string(fields.occurred_at)},"payload":{text}}}'
    )
    return LiveEvent(seq, fields.type, fields.user_id, fields.instance_id, frame, epoch)


def notice(type_: str, **fields: Any) -> Notice:
    """A control frame `{"type": type_, **fields}`."""
    return Notice(type=type_, frame=json.dumps({"type": type_, **fields}, separators=(",", ":")))


def ready_notice(replayed: int, seq: int | None = None, epoch: str | None = None) -> Notice:
    """Replay is over (`replayed` events were sent); every later frame is live. `seq`: where
    the session stands (every event after it arrives next), when known: the frame's
    `last_seq` (a WebSocket client resumes from it) and an SSE client's `Last-Event-ID`. A
    client that drops before its first event then misses nothing published meanwhile.
    `epoch`: the stream's that `seq` counts in, sent with it when known."""
    if seq is None:
        return notice("ready", replayed=replayed)
    stream = {} if epoch is None else {"epoch": epoch}
    ready = notice("ready", replayed=replayed, last_seq=seq, **stream)
    return Notice(ready.type, ready.frame, seq, epoch)


def resync_notice(reason: str, first_seq: int) -> Notice:
    """The missed events are no longer kept: reload state from the HTTP API, then go on live."""
    return notice("resync", reason=reason, first_seq=first_seq)


def error_notice(message: str) -> Notice:
    """A client frame was not understood; the connection stays open."""
    return notice("error", error={"code": "invalid", "message": message})


PONG = notice("pong")


def answer_client_frame(text: str | None) -> Notice:
    """The answer to a client frame: `pong` to `{"type": "ping"}`, an error frame otherwise."""
    if text is None:
        return error_notice("binary frames are not understood; send JSON text")
    try:
        # Numbers are never read: kept as their text, so one over int()'s 4,300 digits is
        # still JSON, not a "frame is not JSON" to a frame that is.
        raw: Any = json.loads(text, parse_int=str)
    except (ValueError, RecursionError):  # nested deeper than the parser goes: not JSON to us
        return error_notice("frame is not JSON")
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        return error_notice("frame has no string field 'type'")
    if raw["type"] != "ping":
        return error_notice(f"unknown frame type {_shown(raw['type'])}; clients may send 'ping'")
    return PONG


SHOWN_CHARS = 64
"""The most of a client's own text an error frame repeats: a 40 KB frame type came back whole,
the gateway writing as much as the client sent, each time it sent it."""


def _shown(said: str) -> str:
    if len(said) <= SHOWN_CHARS:
        return repr(said)
    return f"{said[:SHOWN_CHARS]!r}... ({len(said):,} characters)"


def parse_instance_id(value: str | None) -> str | None:
    """`instance_id`: absent is None (every instance of the user), else an instance id."""
    if value is None:
        return None
    if value == "":
        # A filter sent empty (`?instance_id=` from a template whose id was unset) widened
        # to every instance: the client asked for one and got all of them.
        raise BadLiveRequest("instance_id must not be empty: leave it out to follow every instance")
    if not _ID.match(value):
        raise BadLiveRequest("instance_id must be 1-64 letters, digits, '-' or '_'")
    return value


def subject_safe(value: str) -> bool:
    """True when `value` can stand as one subject token (no wildcard can be smuggled in)."""
    return fits_a_token(value)


@dataclass(frozen=True, slots=True)
class StreamBounds:
    """The sequence numbers the events stream holds now (`first_seq > last_seq` when empty),
    and its epoch (None when the stream reports none)."""

    first_seq: int
    last_seq: int
    epoch: str | None = None


@dataclass(frozen=True, slots=True)
class Replay:
    """Replay every event after `after_seq`."""

    after_seq: int


@dataclass(frozen=True, slots=True)
class Resync:
    """The gap cannot be replayed; tell the client why."""

    notice: Notice


def plan_replay(after_seq: int, bounds: StreamBounds, epoch: str | None = None) -> Replay | Resync:
    """Replay when the stream still holds everything after `after_seq`, resync otherwise.

    `epoch` is the stream's the client says `after_seq` counts in: another one than the
    stream's now is a stream deleted and created again, whose seqs started over, so the same
    number names other events. Without one (an older client), only the numbers are checked.
    """
    if epoch is not None and bounds.epoch is not None and epoch != bounds.epoch:
        reason = (
            f"seq {after_seq} is of another events stream (epoch {epoch}, now {bounds.epoch}); "
            "stream was reset"
        )
        return Resync(resync_notice(reason, bounds.first_seq))
    if after_seq + 1 < bounds.first_seq:
        reason = f"events after {after_seq} are no longer kept (oldest kept: {bounds.first_seq})"
        return Resync(resync_notice(reason, bounds.first_seq))
    if after_seq > bounds.last_seq:
        past = f"seq {after_seq} is past the newest event ({bounds.last_seq})"
        # In the stream's own epoch the stream was not reset: no frame carried that seq.
        same_stream = epoch is not None and epoch == bounds.epoch
        why = " of this stream, so no frame carried it" if same_stream else "; stream was reset"
        return Resync(resync_notice(past + why, bounds.first_seq))
    return Replay(after_seq)


def too_old(stored_at: datetime, now: datetime, max_age: timedelta) -> bool:
    """True when a missed event is older than the replay limit."""
    return now - stored_at > max_age


def too_old_notice(max_age: timedelta, first_seq: int) -> Notice:
    """The resync frame for a gap older than the replay limit."""
    hours = max_age.total_seconds() / 3600
    return resync_notice(f"missed events are older than the {hours:g} h replay limit", first_seq)


_SSE_LINE_END = re.compile(r"\r\n|\r|\n")


def sse_message(frame: Frame) -> str:
    """One SSE message: `id: <epoch>-<seq>` (`<seq>` when the stream has no epoch) and
    `event: <type>` for events (and a `ready` that knows where the session stands),
    `event: <type>` for other notices."""
    lines = []
    if frame.seq is not None:  # every event; a `ready` that knows where the session stands
        # The browser sends the id back as `Last-Event-ID`: the epoch comes back with it.
        lines.append(
            f"id: {frame.seq}" if frame.epoch is None else f"id: {frame.epoch}-{frame.seq}"
        )
    lines.append(f"event: {SSE_EVENT_NAMES.get(frame.type, frame.type)}")
    # SSE ends a line at CR, LF or CRLF only; `str.splitlines` also splits at U+2028, U+2029,
    # U+0085 and more, which JSON leaves unescaped inside strings, and the client would join
    # those pieces with a real newline, breaking the JSON.
    lines += [f"data: {line}" for line in _SSE_LINE_END.split(frame.frame)]
    return "\n".join(lines) + "\n\n"
