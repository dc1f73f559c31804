"""One holder at a time per idempotency key, in this process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from baton_contracts import RemoteError

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

    @asynccontextmanager
    async def one_attempt(self, key: Key, attempt: Hashable | None) -> AsyncIterator[None]:
        """`one_at_a_time`, for one attempt of a request (its caller's deadline: a resend of it
        carries the same). When the key's call fails with a `RemoteError`, the calls queued
        behind it that are the same attempt get that error instead of running: their caller
        has already answered its user with it, and a second model call would record what it
        was told was not. Another attempt (a retry, a new deadline) runs. None: no attempt is
        known, so nothing is answered so."""
        async with self.one_at_a_time(key):
            entry = self._keys[key]
            if attempt is not None and entry.failed is not None and entry.failed[0] == attempt:
                raise entry.failed[1]
            try:
                yield
            except RemoteError as exc:
                if attempt is not None and entry.holders > 1:
                    entry.failed = (attempt, exc)
                raise

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

    def __len__(self) -> int:
        return len(self._keys)
