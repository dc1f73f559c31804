"""The requester's clock, as a responder can read it while it handles one request.

A request's `deadline` (`RunAgent`, `RunTask`) is an instant of its sender's wall clock, and
the replica that answers runs on another host, whose clock may be seconds apart or have
jumped. Compared with that host's own clock, a deadline that had passed for the sender left
the answering replica seconds more to record a turn its caller had already reported as
failed, or a deadline still ahead ended the call early. So each send of a request with a
deadline carries its sender's clock reading (`SENT_AT_HEADER`), and the responder reads the
sender's clock as that reading plus the time since the request arrived, on its own monotonic
clock: what no difference or jump of wall clocks between the two hosts moves. The request's
time on the wire (milliseconds) is not counted: the sender's `REPLY_GRACE` allows for it.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

SENT_AT_HEADER = "Baton-Sent-At"
"""The sender's wall clock when it sent this copy of a request, in seconds since the epoch."""

_ARRIVED: ContextVar[tuple[float, float] | None] = ContextVar("baton_caller_clock", default=None)
"""(the sender's clock at the send, this process's monotonic clock at the arrival)."""


def sent_at_header(message: Any) -> dict[str, str]:
    """The header a request with a deadline carries, read now; none for one without."""
    if getattr(message, "deadline", None) is None:
        return {}
    return {SENT_AT_HEADER: repr(time.time())}


_STAMP = "_baton_arrived_at"
"""The attribute of a nats-py `Msg` that holds this process's monotonic clock at its arrival."""


def stamp_arrivals(sub: Subscription) -> None:
    """Stamp each message of `sub` with the monotonic clock as nats-py queues it for the
    subscription's callback.

    A responder at its concurrency leaves requests waiting, in its callback and in nats-py's
    queue behind it, for as long as its handlers take, and the sender's clock goes on
    meanwhile: read from when the handler started, that wait was left out, and a request
    queued past its deadline was still worked on. nats-py keeps no arrival time and has no
    hook for one, so its queue's `put_nowait` is wrapped; `stamp` covers what came before."""
    queue = getattr(sub, "_pending_queue", None)
    if queue is None:
        return
    put = queue.put_nowait

    def put_stamped(msg: Msg) -> None:
        stamp(msg)
        put(msg)

    queue.put_nowait = put_stamped


def stamp(msg: Msg) -> None:
    """Note `msg`'s arrival now, unless it was noted already."""
    if getattr(msg, _STAMP, None) is None:
        setattr(msg, _STAMP, time.monotonic())


def arrived(headers: dict[str, str] | None, msg: Msg | None = None) -> None:
    """Note the sender's clock of the request being handled (in this task's context), from
    `msg`'s arrival (`stamp`) when it is given."""
    sent = (headers or {}).get(SENT_AT_HEADER)
    at = getattr(msg, _STAMP, None) if msg is not None else None
    try:
        _ARRIVED.set(None if sent is None else (float(sent), at or time.monotonic()))
    except ValueError:  # not a number: read as no reading at all
        _ARRIVED.set(None)


def caller_now() -> datetime | None:
    """The sender's wall clock now, for the request being handled; None when it sent none."""
    found = _ARRIVED.get()
    if found is None:
        return None
    sent, at = found
    return datetime.fromtimestamp(sent + (time.monotonic() - at), UTC)
