"""What the service layer needs from the outside world."""

from __future__ import annotations

from enum import Enum
from typing import Protocol

from pydantic import BaseModel

from baton_contracts import Command, Query


class Again(Enum):
    """When a request answered `unavailable` for want of a replica is sent again, every half
    second within its timeout: while the owner restarts, instead of a 503 at once."""

    NEVER = "never"
    UNSENT = "unsent"
    """While no replica takes it ("no responders"): nothing was done, so any request."""
    GONE = "gone"
    """Also when the replica that took it stopped before answering, perhaps after doing part
    of it: only for a request whose owner answers a repeat once (a key, or idempotent)."""


class Requester(Protocol):
    """Sends a contract Query/Command to its owner and returns the decoded reply model.

    Raises `baton_contracts.RemoteError` for a typed error, `ErrorCode.UNAVAILABLE` when
    nobody answers within `timeout` seconds.
    """

    async def request(
        self, message: Query | Command, *, timeout: float, again: Again = Again.NEVER
    ) -> BaseModel:
        """The owner's reply; sent again as `again` says, within `timeout`."""
        ...

    async def request_json(
        self,
        message: Query | Command,
        *,
        timeout: float,
        resend_after: float | None = None,
        again: Again = Again.NEVER,
    ) -> bytes:
        """The same reply as `request`'s, as the owner's JSON, to be sent on unchanged. With
        `resend_after`, sent again when unanswered that long (then twice as long each time),
        and while no replica takes it, within `timeout` (`Again.GONE` whatever `again` says):
        only for a message its owner answers a repeat of from the same work."""
        ...


class Connection(Protocol):
    """Whether the link to NATS is up right now."""

    @property
    def is_connected(self) -> bool: ...
