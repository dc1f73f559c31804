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
    concurrent load that read an older tail must not replace a newer entry)."""

    def __init__(self, size: int, version: Callable[[V], int]) -> None:
        self._values: OrderedDict[K, V] = OrderedDict()
        self._size = size
        self._version = version

    def get(self, key: K) -> V | None:
        return self._values.get(key)

    def put(self, key: K, value: V) -> None:
        known = self._values.get(key)
        if known is not None and self._version(known) > self._version(value):
            return
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self._size:
            self._values.popitem(last=False)

    def pop(self, key: K) -> None:
        self._values.pop(key, None)
