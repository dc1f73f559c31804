"""Where a live client stands: a seq, and the epoch of the events stream it counts in.

A seq is a JetStream stream sequence. A stream deleted and created again (an operator's reset,
a NATS server that lost its store, a new cluster) numbers its events from 1 again, so a seq
alone can name an event of the old stream and another one of the new. The epoch tells them
apart: the stream's creation time, which a new stream does not share. Clients treat it as an
opaque string of digits and send back the one that came with their seq.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from baton_notifier.domain.live import BadLiveRequest

_UNIX = datetime(1970, 1, 1, tzinfo=UTC)
MAX_DIGITS = 19
"""Of a seq and of an epoch: each fits a signed 64-bit integer."""
POSITION_PATTERN = rf"^([0-9]{{1,{MAX_DIGITS}}}-)?[0-9]{{1,{MAX_DIGITS}}}$"
"""What `parse_position` takes, for the API's documentation (absent: live only)."""
EPOCH_PATTERN = rf"^[0-9]{{1,{MAX_DIGITS}}}$"
"""What `parse_epoch` takes, for the API's documentation (absent: none)."""


@dataclass(frozen=True, slots=True)
class Position:
    """After `seq` of the stream `epoch` (None: a client that did not say which stream)."""

    seq: int
    epoch: str | None = None


def epoch_of(created: datetime) -> str:
    """The epoch of a stream created at `created`: whole microseconds since 1970, as digits
    (nats-py reads the server's creation time to the microsecond)."""
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return str((created - _UNIX) // timedelta(microseconds=1))


def _digits(value: str) -> bool:
    return value.isascii() and value.isdigit()


def parse_position(value: str | None, name: str = "last_seq") -> Position | None:
    """`last_seq` / `Last-Event-ID` (`name`, which the error says): absent is None (live only),
    else `<seq>`, or `<epoch>-<seq>` as an SSE `id:` writes it. An empty `Last-Event-ID` is
    absent (the SSE route reads the query's instead); an empty `last_seq` is refused."""
    if value is None:
        return None
    if value == "":
        # `?last_seq=` from a template whose seq was unset: read as "live only", it skipped
        # every event the client missed, without a word.
        raise BadLiveRequest(
            f"{name} must not be empty: leave it out to receive only the events from now on"
        )
    epoch, dash, seq = value.rpartition("-")
    if not _digits(seq) or (dash and not _digits(epoch)):
        raise BadLiveRequest(
            f"{name} must be a whole number >= 0, or <epoch>-<seq> as an SSE id writes it, "
            f"got {value[:40]!r}"
        )
    if len(seq) > MAX_DIGITS or len(epoch) > MAX_DIGITS:
        raise BadLiveRequest(
            f"{name} must have at most {MAX_DIGITS} digits (in its epoch and in its seq), "
            f"got {value[:40]!r}"
        )
    return Position(int(seq), epoch if dash else None)


def parse_epoch(value: str | None, name: str = "epoch") -> str | None:
    """`epoch`: absent is None, else the digits of an epoch a frame carried."""
    if value is None:
        return None
    if value == "":
        # Read as "no epoch", a resume lost the check that its seq counts in this stream.
        raise BadLiveRequest(f"{name} must not be empty: leave it out when no frame carried one")
    if not _digits(value) or len(value) > MAX_DIGITS:
        raise BadLiveRequest(
            f"{name} must be the epoch a frame carried: 1-{MAX_DIGITS} digits, got {value[:40]!r}"
        )
    return value


def resume_point(position: Position | None, epoch: str | None) -> Position | None:
    """Where a client resumes: `position`, with `epoch` (a separate parameter) when the
    position names none. The position's own wins: an `EventSource` keeps the URL it was opened
    with, while the `Last-Event-ID` it sends moves on to newer streams."""
    if position is None or position.epoch is not None or epoch is None:
        return position
    return Position(position.seq, epoch)
