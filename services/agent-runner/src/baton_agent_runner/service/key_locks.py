"""One holder at a time per idempotency key, in this process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

Key = tuple[str, str]
"""(user id, idempotency key)."""


@dataclass
class _KeyLock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    holders: int = 0


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

    def __len__(self) -> int:
        return len(self._keys)
