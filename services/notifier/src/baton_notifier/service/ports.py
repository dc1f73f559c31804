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

    async def request_json(self, message: Query | Command, *, timeout: float) -> bytes:
        """The same reply as `request`'s, as the owner's JSON, to be sent on unchanged."""
        ...


class Connection(Protocol):
    """Whether the link to NATS is up right now."""

    @property
    def is_connected(self) -> bool: ...
