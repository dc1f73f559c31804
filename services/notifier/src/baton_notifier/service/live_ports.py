"""What live events need from the outside: the one live feed and the stored history."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from baton_notifier.domain.live import LiveEvent, StreamBounds


class HistoryUnavailable(Exception):
    """The stored events cannot be read right now (NATS is down); try again later."""


class LiveFeed(Protocol):
    """The process's one subscription to new events; it hands each to the hub."""

    async def wait_ready(self) -> None:
        """Return once every event published from now on will reach the hub."""
        ...

    def position(self) -> int | None:
        """The last seq handed to the hub, once ready (None before): a session the hub takes
        now gets every event after it."""
        ...

    def epoch(self) -> str | None:
        """The epoch of the stream `position` counts in (None before ready, or when the
        stream reports none)."""
        ...


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event read back from the stream, with when the stream stored it."""

    event: LiveEvent
    stored_at: datetime


class EventHistory(Protocol):
    """The events stream read back in order, for replay."""

    async def bounds(self) -> StreamBounds:
        """The first and last sequence numbers the stream holds, and its epoch;
        `HistoryUnavailable`."""
        ...

    def since(
        self, user_id: str, instance_id: str | None, after_seq: int, epoch: str | None = None
    ) -> AsyncGenerator[StoredEvent, None]:
        """The user's (instance's) events with seq > `after_seq` that exist now, in order,
        their frames carrying `epoch` (the stream's, as `bounds` gave it).

        Raises `HistoryUnavailable` when the stream cannot be read; the caller starts again.
        """
        ...
