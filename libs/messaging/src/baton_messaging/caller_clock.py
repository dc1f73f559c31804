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

SENT_AT_HEADER = "Baton-Sent-At"
"""The sender's wall clock when it sent this copy of a request, in seconds since the epoch."""

_ARRIVED: ContextVar[tuple[float, float] | None] = ContextVar("baton_caller_clock", default=None)
"""(the sender's clock at the send, this process's monotonic clock at the arrival)."""


def sent_at_header(message: Any) -> dict[str, str]:
    """The header a request with a deadline carries, read now; none for one without."""
    if getattr(message, "deadline", None) is None:
        return {}
    return {SENT_AT_HEADER: repr(time.time())}


def arrived(headers: dict[str, str] | None) -> None:
    """Note the sender's clock of the request being handled (in this task's context)."""
    sent = (headers or {}).get(SENT_AT_HEADER)
    try:
        _ARRIVED.set(None if sent is None else (float(sent), time.monotonic()))
    except ValueError:  # not a number: read as no reading at all
        _ARRIVED.set(None)


def caller_now() -> datetime | None:
    """The sender's wall clock now, for the request being handled; None when it sent none."""
    found = _ARRIVED.get()
    if found is None:
        return None
    sent, at = found
    return datetime.fromtimestamp(sent + (time.monotonic() - at), UTC)
