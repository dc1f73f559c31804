"""The folded-stream cache: bounded by count, and by weight when given one."""

from __future__ import annotations

from baton_workflow.adapters.newest_cache import NewestCache


def weighed(budget: int, size: int = 100) -> NewestCache[str, tuple[int, int]]:
    """Values are `(version, weight)`."""
    return NewestCache(size, lambda v: v[0], weight=lambda v: v[1], budget=budget)


def test_the_least_recently_stored_go_first_once_the_weights_pass_the_budget() -> None:
    cache = weighed(budget=10)
    cache.put("a", (1, 4))
    cache.put("b", (1, 4))
    cache.put("c", (1, 4))
    assert cache.get("a") is None and cache.get("b") and cache.get("c")
    assert cache.weight == 8


def test_a_newer_value_replaces_the_weight_of_the_older_one() -> None:
    cache = weighed(budget=10)
    cache.put("a", (1, 4))
    cache.put("a", (2, 9))
    assert cache.weight == 9 and len(cache) == 1
    cache.put("a", (1, 1))  # older: not stored, weight unchanged
    assert cache.get("a") == (2, 9) and cache.weight == 9
    cache.pop("a")
    assert cache.weight == 0 and len(cache) == 0


def test_a_value_heavier_than_the_budget_is_not_kept_nor_its_older_version() -> None:
    cache = weighed(budget=10)
    cache.put("a", (1, 4))
    cache.put("b", (1, 3))
    cache.put("a", (2, 11))
    assert cache.get("a") is None and cache.get("b") == (1, 3)
    assert cache.weight == 3


def test_without_a_weight_only_the_count_bounds_it() -> None:
    cache: NewestCache[str, int] = NewestCache(2, lambda v: v)
    for key in "abc":
        cache.put(key, 1)
    assert cache.get("a") is None and len(cache) == 2 and cache.weight == 0
