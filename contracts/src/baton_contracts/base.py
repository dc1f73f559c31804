"""Base classes for every message that crosses NATS, and how a message names its subject."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

ReplyModel = type[BaseModel]
"""Annotation alias: inside a message class body the name `type` is the field, not the builtin."""

OWNERS: frozenset[str] = frozenset({"workflow", "agent", "space", "notifier", "trigger"})
"""Subject owners: one per service (`agent` is the agent-runner, `space` the worker-space)."""


class Kind(StrEnum):
    """The middle token of a subject: what the message is."""

    EVT = "evt"
    CMD = "cmd"
    QUERY = "query"


class Delivery(StrEnum):
    """How a message travels: stored in a JetStream stream, or core NATS request/reply."""

    STREAM = "stream"
    REQUEST = "request"
    BROADCAST = "broadcast"


_UNFIT_IN_A_TOKEN = frozenset(". *>\t\r\n")


def fits_a_token(value: str) -> bool:
    """True when `value` can stand as one subject token: not empty, no separator, no
    wildcard, no whitespace (so no wildcard can be smuggled into a filter either)."""
    return bool(value) and _UNFIT_IN_A_TOKEN.isdisjoint(value)


USER_ID_MEANING = (
    "a user id is one token of NATS subjects: not empty, with no '.', '*', '>' or white space"
)
USER_ID_NFC_MEANING = (
    "a user id must be in Unicode normal form C (NFC): 'e' followed by a combining accent "
    "looks like '\u00e9' yet names another user; send the NFC form of the id"
)


def is_nfc(value: str) -> bool:
    """True when `value` is in Unicode normal form C, the one form a user id may take.

    Two spellings of one name (`\u00e9` and `e` + U+0301) look alike in logs and the console
    but are different subject tokens, so they would be two users: the other form is refused,
    never mapped onto this one, since data may already be stored under either."""
    return unicodedata.is_normalized("NFC", value)


def _user_token(value: str) -> str:
    # Checked when the command arrives, so a caller is told which field: found only when its
    # first event's subject was rendered, the same id failed the handler as an internal error.
    if not fits_a_token(value):
        raise PydanticCustomError("user_id", USER_ID_MEANING)
    if not is_nfc(value):
        raise PydanticCustomError("user_id", USER_ID_NFC_MEANING)
    return value


UserToken = Annotated[str, AfterValidator(_user_token)]
"""A user id a command acts for: the owner's events carry it as a subject token."""


class Subject(BaseModel):
    """A subject pattern `<owner>.<kind>.<name>[.<key>...]`; keys are filled from message fields."""

    model_config = ConfigDict(frozen=True)

    owner: str
    kind: Kind
    name: str
    keys: tuple[str, ...] = ()
    legacy_patterns: tuple[str, ...] = ()
    """Patterns this message was published on before its keys changed. Streams keep capturing
    them, so a publisher still on the older layout lands during a rolling upgrade."""

    @property
    def base(self) -> str:
        """The subject without its keys."""
        return f"{self.owner}.{self.kind.value}.{self.name}"

    @property
    def pattern(self) -> str:
        """The subject with one `*` per key: what a subscriber or a stream listens on."""
        return ".".join([self.base, *("*" for _ in self.keys)])

    def filter(self, **fixed: str) -> str:
        """The pattern with some keys fixed: `filter(agent_token="x")` -> `...*.*.x`."""
        unknown = set(fixed) - set(self.keys)
        if unknown:
            raise ValueError(
                f"{self.base}: no key {', '.join(sorted(unknown))} (keys: {self.keys})"
            )
        return ".".join([self.base, *(fixed.get(key, "*") for key in self.keys)])

    def render(self, message: BaseModel) -> str:
        """The concrete subject for one message."""
        tokens = [self.base]
        for key in self.keys:
            value = str(getattr(message, key))
            if not fits_a_token(value):
                raise ValueError(f"subject key {key!r} has a value unfit for a subject: {value!r}")
            tokens.append(value)
        return ".".join(tokens)


class Message(BaseModel):
    """Any wire message. Frozen, strict about unknown fields, with a stable `type` string.

    A float field refuses NaN and Infinity: JSON has neither, and the message would carry
    `null` in their place.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    type: str
    subject: ClassVar[Subject]
    delivery: ClassVar[Delivery]

    def wire_subject(self) -> str:
        """The subject this message is published or requested on."""
        return self.subject.render(self)

    def to_bytes(self) -> bytes:
        """JSON encoding for the wire."""
        return self.model_dump_json().encode()


class Event(Message):
    """Something that happened, published to a JetStream stream once committed."""

    delivery: ClassVar[Delivery] = Delivery.STREAM

    event_id: UUID
    occurred_at: datetime
    user_id: str


class Command(Message):
    """A request for the owner to change something; one handler, errors come back typed."""

    delivery: ClassVar[Delivery] = Delivery.REQUEST
    reply_model: ClassVar[ReplyModel]

    user_id: UserToken


CallerDeadline = Annotated[
    AwareDatetime | None, Field(default=None, exclude_if=lambda deadline: deadline is None)
]
"""When the sender stops waiting for the answer to a request that writes (a DAG start, cancel,
save, delete or rollback; a chat turn). The gateway sets it from its request timeout at the
first send, and keeps it on every send again. The request's write begins early enough to end,
and its answer to come back, before then, or it is refused `unavailable` with nothing written:
a caller told 503 can send it again. An instant of the sender's clock (its reading travels
with each send, `Baton-Sent-At`). None: bounded only by the owner's own timeouts from the
request's arrival (an older gateway, the CLI or another service); left off the wire then, so
such a request is sent as it was before."""


class Query(Message):
    """A question to the owner of some data; never changes anything."""

    delivery: ClassVar[Delivery] = Delivery.REQUEST
    reply_model: ClassVar[ReplyModel]


class Broadcast(Message):
    """A notice to every replica of the owner: core NATS without a queue group, no reply, not
    stored. For what one replica holds in memory (a call in flight, a run it drives), so the
    sender need not know which. A notice nobody hears is lost: it may only hurry up what a
    deadline, a lease or a timer brings about anyway."""

    delivery: ClassVar[Delivery] = Delivery.BROADCAST


class ErrorCode(StrEnum):
    """Typed failures an owner may answer with; the gateway maps each to an HTTP status."""

    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    INVALID = "invalid"
    TOO_LARGE = "too_large"
    TOO_MANY = "too_many"
    """The caller holds as many of a thing as it may at once (runs in flight): not now."""
    FORBIDDEN = "forbidden"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


class ErrorDetail(BaseModel):
    """One problem, located by a field path where it has one (`data.name`, `steps[2].agent`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: str | None = None
    message: str


class ErrorBody(BaseModel):
    """The error half of a reply."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: ErrorCode
    message: str
    details: list[ErrorDetail] = Field(default_factory=list)


class ReplyOk(BaseModel):
    """A successful reply carrying the result as JSON.

    On the wire it is exactly `{"ok":true,"result":<result>}` (what `model_dump_json` writes),
    so `ok_reply_json` and `ok_result_json` can write and read it in one pass over the result.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: Literal[True] = True
    result: dict[str, Any]


_OK_HEAD, _OK_TAIL = b'{"ok":true,"result":', b"}"


def ok_reply_json(result: BaseModel) -> bytes:
    """`ReplyOk(result=result)` as JSON, the same bytes as going through a dict, in one pass.

    Every request of a chat turn or a transition is answered this way; the dict in between
    cost as much again as the JSON itself (measured on a 2.6 kB chat reply: 21 us against 10).
    """
    return _OK_HEAD + result.model_dump_json().encode() + _OK_TAIL


def ok_result_json(raw: bytes) -> bytes | None:
    """The result's JSON from a reply `ok_reply_json` wrote; None for any other reply (an
    error, or one written another way), which the caller then decodes as a whole."""
    if raw.startswith(_OK_HEAD) and raw.endswith(_OK_TAIL):
        return raw[len(_OK_HEAD) : -len(_OK_TAIL)]
    return None


class ReplyError(BaseModel):
    """A failed reply."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: Literal[False] = False
    error: ErrorBody
