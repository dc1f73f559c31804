"""A bounded cache of folded streams that never goes back to an older version of one."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class NewestCache(Generic[K, V]):
    """Up to `size` values, least recently stored out first; `version` says how far each
    value's stream was folded, and a value older than the one held is not stored (a
    concurrent load that read an older tail must not replace a newer entry).

    With `weight` and `budget`, the values' weights add up to at most `budget` too: the
    least recently stored go first, and a value heavier than the whole budget is not kept."""

    def __init__(
        self,
        size: int,
        version: Callable[[V], int],
        *,
        weight: Callable[[V], int] | None = None,
        budget: int | None = None,
    ) -> None:
        self._values: OrderedDict[K, V] = OrderedDict()
        self._size = size
        self._version = version
        self._weight = weight if weight is not None and budget is not None else None
        self._budget = budget if budget is not None else 0
        self.weight = 0
        """What the values held weigh together (0 without a `weight`)."""

    def get(self, key: K) -> V | None:
        return self._values.get(key)

    def __len__(self) -> int:
        return len(self._values)

    def put(self, key: K, value: V) -> None:
        known = self._values.get(key)
        if known is not None and self._version(known) > self._version(value):
            return
        if self._weight is not None:
            heavy = self._weight(value)
            if heavy > self._budget:
                self.pop(key)
                return
            self.weight += heavy - (self._weight(known) if known is not None else 0)
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self._size or self.weight > self._budget:
            _, gone = self._values.popitem(last=False)
            if self._weight is not None:
                self.weight -= self._weight(gone)

    def pop(self, key: K) -> None:
        gone = self._values.pop(key, None)
        if gone is not None and self._weight is not None:
            self.weight -= self._weight(gone)
