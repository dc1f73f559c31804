"""The requester side of NATS request/reply: one call, an explicit timeout, typed errors.

`await request(broker_or_nc, SomeQuery(...), timeout=2.0)` publishes to
`message.wire_subject()` with the current W3C trace context in the headers, and returns the
reply decoded into `type(message).reply_model`. Every failure is a `RemoteError`: the owner's
own typed error, or `ErrorCode.UNAVAILABLE` when nobody answers in time.
"""

from __future__ import annotations

from typing import Any

import nats.errors
from faststream.nats import NatsBroker
from nats.aio.client import Client
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from pydantic import BaseModel, TypeAdapter, ValidationError

from baton_contracts import (
    Command,
    Delivery,
    ErrorCode,
    Message,
    Query,
    RemoteError,
    ReplyError,
    ReplyOk,
    ok_result_json,
)
from baton_contracts.storable import format_path
from baton_messaging.caller_clock import sent_at_header
from baton_messaging.outbound import unsendable

REPLY_ENVELOPE = TypeAdapter[ReplyOk | ReplyError](ReplyOk | ReplyError)
"""Any reply as the wire carries it: a `ReplyOk` or a `ReplyError`."""
_TRACER = trace.get_tracer("baton_messaging.requests")

NO_RESPONDERS = "no responders on"
"""How the `unavailable` error of a request that reached no replica at all begins."""
STOPPED_BEFORE_ANSWERING = "the service stopped before answering"
"""What the `unavailable` reply of a replica that stopped while handling the request says."""


class ReplyUnreadable(RemoteError):
    """`internal`: the owner answered, but its reply could not be decoded here (not a reply
    envelope, or a result that does not match the reply model). Unlike every other failure of
    a request, the owner did its work: a command's effects, if any, were recorded."""


def replica_gone(exc: RemoteError) -> bool:
    """The request reached no replica, or the one it reached stopped before answering (a
    restart, a rolling deploy): no answer was given, and the same request may be sent again for
    another replica, or the restarted one, to answer (a handler cut off may have done part of
    its work, so the request should carry an idempotency key). A timeout is not this: the owner
    may still be working on the request."""
    return exc.code is ErrorCode.UNAVAILABLE and (
        exc.body.message.startswith(NO_RESPONDERS) or STOPPED_BEFORE_ANSWERING in exc.body.message
    )


def no_responders(exc: RemoteError) -> bool:
    """The request reached no replica at all: nothing was done, whatever it asked for, so it
    may be sent again even without an idempotency key (unlike `replica_gone`'s other half, a
    replica that took it and stopped before answering, perhaps after doing part of it)."""
    return exc.code is ErrorCode.UNAVAILABLE and exc.body.message.startswith(NO_RESPONDERS)


async def request(
    client: NatsBroker | Client, message: Query | Command | Message, *, timeout: float
) -> BaseModel:
    """Send `message` to its owner and return the typed reply, or raise `RemoteError`."""
    raw, reply_model, subject = await _exchange(client, message, timeout)
    return _decode_reply(raw, reply_model, subject)


async def request_json(
    client: NatsBroker | Client, message: Query | Command | Message, *, timeout: float
) -> bytes:
    """`request`, answering the typed reply as the JSON its owner encoded it in, for an edge
    that sends it on unchanged. The usual reply's result is cut out of it as it came: neither
    decoded here nor encoded again (for a chat turn's reply, about 40 us of the gateway's CPU
    between the two, measured). Errors are the same `RemoteError`s as `request`'s; a reply
    written another way is decoded, checked, and encoded."""
    raw, reply_model, subject = await _exchange(client, message, timeout)
    result = ok_result_json(raw)
    if result is not None:
        return result
    return _decode_reply(raw, reply_model, subject).model_dump_json().encode()


async def _exchange(
    client: NatsBroker | Client, message: Query | Command | Message, timeout: float
) -> tuple[bytes, type[BaseModel], str]:
    """Send `message` to its owner: the raw reply, the model it holds, and the subject."""
    reply_model = _reply_model_of(message)
    if timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    nc = client.connection if isinstance(client, NatsBroker) else client
    subject = message.wire_subject()
    raw = await _round_trip(nc, subject, message.to_bytes(), timeout, sent_at_header(message))
    return raw, reply_model, subject


def _reply_model_of(message: Message) -> type[BaseModel]:
    model = getattr(type(message), "reply_model", None)
    if message.delivery is not Delivery.REQUEST or model is None:
        raise TypeError(
            f"{type(message).__name__} is not a request (Query or Command with a reply_model)"
        )
    return model  # type: ignore[no-any-return]


def tracing_on() -> bool:
    """Whether a tracer provider is set. Until one is, each span made here is a no-op that
    only hands the current trace context on; making it (a context manager, a span, a context
    attached and detached) cost a request about 5 us on each side (timeit), so without a
    provider a request and its handling make none and pass the same context on."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def trace_headers() -> dict[str, str]:
    """The current trace as message headers (`traceparent`), for an event published later by
    the relay, so its consumers join the trace it was recorded in; none while no tracer
    provider is set (no headers to store or send per event)."""
    headers: dict[str, str] = {}
    if tracing_on():
        propagate.inject(headers)
    return headers


async def _round_trip(
    nc: Client, subject: str, payload: bytes, timeout: float, headers: dict[str, Any]
) -> bytes:
    if not tracing_on():  # the current context: what the no-op span would have passed on
        propagate.inject(headers)
        return await _send(nc, subject, payload, timeout, headers)
    outer = otel_context.get_current()
    with _TRACER.start_as_current_span(
        f"{subject} request", kind=trace.SpanKind.CLIENT, attributes=span_attributes(subject)
    ) as span:
        # Without an SDK our span is invalid; still pass on whatever trace came in from upstream.
        propagate.inject(headers, context=None if span.get_span_context().is_valid else outer)
        raw = await _send(nc, subject, payload, timeout, headers)
        if span.is_recording() and ok_result_json(raw) is None:
            try:
                reply = REPLY_ENVELOPE.validate_json(raw)
            except ValidationError:
                reply = None
            if isinstance(reply, ReplyError):
                record_error(span, reply.error.code, reply.error.message)
        return raw


SERVER_SIDE_CODES = frozenset({"unavailable", "internal"})


def record_error(span: Any, code: str, message: str) -> None:
    """Mark a request/process span with the error code of its reply; an error status only
    for codes that mean the service could not serve (the caller's own mistakes stay unset)."""
    span.set_attribute("error.type", str(code))
    if str(code) in SERVER_SIDE_CODES:
        span.set_status(trace.Status(trace.StatusCode.ERROR, f"{code}: {message}"))


def _seconds(value: float) -> str:
    """A wait as people read it: `35.5`, `40`, `0.7` (a deadline's time left was printed as
    `35.49402399999963`)."""
    return f"{value:.1f}".removesuffix(".0")


def _too_large(nc: Client, subject: str, payload: bytes) -> RemoteError:
    return RemoteError.of(
        ErrorCode.TOO_LARGE,
        f"the request on {subject!r} is {len(payload)} bytes as sent; NATS takes at most "
        f"{nc.max_payload}",
    )


async def _send(
    nc: Client, subject: str, payload: bytes, timeout: float, headers: dict[str, Any]
) -> bytes:
    # Refused here, not by nats-py: its `request` would keep the reply's future (outbound.py).
    if len(payload) > nc.max_payload:
        raise _too_large(nc, subject, payload)
    if (why := unsendable(nc, len(payload))) is not None:
        raise RemoteError.of(ErrorCode.UNAVAILABLE, f"request on {subject!r} not sent: {why}")
    try:
        msg = await nc.request(subject, payload, timeout=timeout, headers=headers or None)
    except nats.errors.NoRespondersError:
        raise RemoteError.of(ErrorCode.UNAVAILABLE, f"{NO_RESPONDERS} {subject!r}") from None
    except nats.errors.MaxPayloadError:
        # Nothing was sent: the request is larger than the server takes (`max_payload`).
        raise _too_large(nc, subject, payload) from None
    except (nats.errors.TimeoutError, TimeoutError):
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE, f"no reply on {subject!r} within {_seconds(timeout)}s"
        ) from None
    except (
        nats.errors.ConnectionClosedError,
        nats.errors.ConnectionDrainingError,
        nats.errors.OutboundBufferLimitError,
    ) as exc:
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE, f"request on {subject!r} failed: {exc}"
        ) from None
    return msg.data


def span_attributes(subject: str) -> dict[str, str]:
    """The OpenTelemetry attributes of a span about one NATS subject (request or process)."""
    return {"messaging.system": "nats", "messaging.destination.name": subject}


def _decode_reply(raw: bytes, reply_model: type[BaseModel], subject: str) -> BaseModel:
    result = ok_result_json(raw)
    if result is not None:  # the usual reply: its result is read in one pass
        try:
            return reply_model.model_validate_json(result)
        except ValidationError:
            pass  # decoded whole below, for the error that says what is wrong
    try:
        reply = REPLY_ENVELOPE.validate_json(raw)
    except ValidationError:
        raise ReplyUnreadable.of(
            ErrorCode.INTERNAL, f"malformed reply on {subject!r}: not a ReplyOk or ReplyError"
        ) from None
    if isinstance(reply, ReplyError):
        raise RemoteError(reply.error)
    try:
        return reply_model.model_validate(reply.result)
    except ValidationError as exc:
        # One line per field, not pydantic's dump: this message reaches the HTTP caller (the
        # gateway's 503 quoted it whole, with each input value, which may be a user's text,
        # and a link to pydantic's docs on a line of its own).
        problems = "; ".join(
            f"{format_path(error['loc']) or 'result'}: {error['msg']}" for error in exc.errors()
        )
        raise ReplyUnreadable.of(
            ErrorCode.INTERNAL,
            f"reply on {subject!r} does not match {reply_model.__name__}: {problems}",
        ) from None
