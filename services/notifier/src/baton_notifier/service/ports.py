"""What the service layer needs from the outside world."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from baton_contracts import Command, Query


class Requester(Protocol):
    """Sends a contract Query/Command to its owner and returns the decoded reply model.

    Raises `baton_contracts.RemoteError` for a typed error, `ErrorCode.UNAVAILABLE` when
    nobody answers within `timeout` seconds.
    """

    async def request(self, message: Query | Command, *, timeout: float) -> BaseModel: ...

    async def request_json(
        self, message: Query | Command, *, timeout: float, resend_after: float | None = None
    ) -> bytes:
        """The same reply as `request`'s, as the owner's JSON, to be sent on unchanged. With
        `resend_after`, sent again when unanswered that long (then twice as long each time),
        and while no replica takes it, within `timeout`: only for a message its owner answers
        a repeat of from the same work."""
        ...


class Connection(Protocol):
    """Whether the link to NATS is up right now."""

    @property
    def is_connected(self) -> bool: ...
