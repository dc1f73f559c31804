"""One holder at a time per idempotency key, in this process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

Key = tuple[str, ...]
"""(user id, idempotency key), or any other tuple naming one thing to do one at a time."""


@dataclass
class _KeyLock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    holders: int = 0
    cancelled: str | None = None
    """Why the key's call was cancelled while others were queued behind it."""
    failed: tuple[Hashable, BaseException] | None = None
    """The attempt whose call failed while others were queued behind it, and its error."""


@dataclass
class KeyLocks:
    """A lock per key, dropped when its last holder leaves: the same key asked twice at once
    (a client's retry while the first call still runs) waits for the first and then finds its
    recorded answer, instead of calling the model a second time."""

    _keys: dict[Key, _KeyLock] = field(default_factory=dict)

    @asynccontextmanager
    async def one_at_a_time(self, key: Key) -> AsyncIterator[None]:
        entry = self._keys.setdefault(key, _KeyLock())
        entry.holders += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.holders -= 1
            if entry.holders == 0:
                del self._keys[key]

    def cancel_queued(self, key: Key, reason: str) -> None:
        """The key's call was cancelled: whoever is queued for the key now is told so
        (`cancelled`) until they have all gone; a call of the key after that is not."""
        entry = self._keys.get(key)
        if entry is not None and entry.holders > 1:
            entry.cancelled = reason

    def cancelled(self, key: Key) -> str | None:
        """Why the key's call was cancelled while the caller was queued for it, if it was."""
        entry = self._keys.get(key)
        return None if entry is None else entry.cancelled

    def fail_queued(self, key: Key, attempt: Hashable, error: BaseException) -> None:
        """The key's call made for `attempt` failed: the calls queued for the key now that are
        the same attempt (repeats of one request) are told so (`failed`) until they have all
        gone, instead of calling again what their caller has already been told failed."""
        entry = self._keys.get(key)
        if entry is not None and entry.holders > 1:
            entry.failed = (attempt, error)

    def failed(self, key: Key, attempt: Hashable) -> BaseException | None:
        """The error of the key's call for `attempt`, if it failed while this caller queued."""
        entry = self._keys.get(key)
        if entry is None or entry.failed is None or entry.failed[0] != attempt:
            return None
        return entry.failed[1]

    def __len__(self) -> int:
        return len(self._keys)
