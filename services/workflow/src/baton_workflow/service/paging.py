"""Pages of an instance's log or conversation: a whole one in one reply could pass the 1 MiB
NATS carries, and then no client could read it at all."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from baton_contracts.workflow_api import PAGE_BYTES

T = TypeVar("T")

_ITEM_OVERHEAD = 200
"""Bytes a page spends on each item beside the measured part (its version, type, times)."""
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def paged(items: Sequence[T], limit: int, size: Callable[[T], int]) -> list[T]:
    """The first of `items`: at most `limit`, and about `PAGE_BYTES` by `size` (never none:
    one item fits a reply on its own, as every signal and message has limits of its own)."""
    page: list[T] = []
    total = 0
    for item in items:
        total += size(item) + _ITEM_OVERHEAD
        if len(page) == limit or (page and total > PAGE_BYTES):
            break
        page.append(item)
    return page


def json_size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON."""
    return len(_COMPACT.encode(value).encode())
