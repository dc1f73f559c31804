"""A responder's slots, shared fairly between the users whose requests wait for one.

First come, first served let one user's burst (a DAG run fanning out 4,000 steps, many chat
conversations at once) take every slot, and every other user's requests waited behind all of
it. Here a request starts at once when a slot is free and nobody waits; otherwise it waits in
its user's own line, and each freed slot goes to the waiting user with the fewest requests
running (among equals, the one waiting longest: a user served goes to the back). A lone user
still gets every slot, and one more user's request waits only for the next slot to free, not
for the burst ahead of it.

`user_cap` bounds one user's requests running at once even when nobody else waits, so a
newcomer need not wait for a slow handler to finish (a model taking a minute): with it below
`concurrency`, slots stay free while the only user with work is at the cap.

No I/O and no clock: the responder (`responders._Serving`) decides when to ask.
"""

from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class FairSlots(Generic[T]):
    """`concurrency` slots and a line of waiting items per user."""

    def __init__(self, concurrency: int, user_cap: int) -> None:
        self._free = concurrency
        self._cap = user_cap
        self._running: dict[str, int] = {}
        # Insertion order is service order among users with as many running: a user served
        # goes to the back, so equals take turns.
        self._lines: dict[str, deque[tuple[T, int]]] = {}
        self.waiting = 0
        """Items in the lines."""
        self.waiting_bytes = 0
        """The sizes given with the items in the lines, summed."""

    def take(self, user: str) -> bool:
        """Take a slot for `user` now, if one is free, nobody waits and `user` is below the
        cap; False leaves the caller to `wait` (the fast path: no line is touched)."""
        if self._free and not self._lines:
            running = self._running.get(user, 0)
            if running < self._cap:
                self._free -= 1
                self._running[user] = running + 1
                return True
        return False

    def wait(self, user: str, item: T, size: int = 0) -> None:
        """Put `item` at the end of `user`'s line; `next` hands it out when it is fair."""
        line = self._lines.get(user)
        if line is None:
            line = self._lines[user] = deque()
        line.append((item, size))
        self.waiting += 1
        self.waiting_bytes += size

    def release(self, user: str) -> None:
        """Give back the slot a request of `user` held."""
        self._free += 1
        running = self._running[user] - 1
        if running:
            self._running[user] = running
        else:
            del self._running[user]

    def next(self) -> tuple[str, T] | None:
        """The waiting item to start now, its slot taken: the oldest of the waiting user with
        the fewest running (below the cap); None when no slot is free or nobody may start."""
        if not self._free or not self._lines:
            return None
        chosen, fewest = None, self._cap
        for user in self._lines:
            running = self._running.get(user, 0)
            if running < fewest:
                chosen, fewest = user, running
                if not running:
                    break
        if chosen is None:
            return None
        line = self._lines.pop(chosen)
        item, size = line.popleft()
        if line:
            self._lines[chosen] = line  # to the back of the users waiting
        self.waiting -= 1
        self.waiting_bytes -= size
        self._free -= 1
        self._running[chosen] = fewest + 1
        return chosen, item

    def clear(self) -> list[T]:
        """Empty every line; the items, each user's in its order."""
        items = [item for line in self._lines.values() for item, _ in line]
        self._lines.clear()
        self.waiting = self.waiting_bytes = 0
        return items


def user_cap(concurrency: int, share: float) -> int:
    """The most requests of one user running at once: `share` of `concurrency`, at least 1."""
    if not 0 < share <= 1:
        raise ValueError(f"max_user_share must be above 0 and at most 1, got {share}")
    return max(1, int(concurrency * share))
