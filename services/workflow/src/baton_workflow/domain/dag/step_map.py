"""`StepMap`: a run's steps by id, immutable, where changing one step does not copy them all.

Every event of a run changes one step, and a run of N steps records a few events per step.
A dict copied per event made folding a run O(N²): 12,000 copies of a 4,000-entry dict for a
4,000-step fan-out, seconds of a single-threaded event loop. A `StepMap` keeps the steps as
they were at its last compaction (`_base`, shared by every map made from it) and the steps
changed since (`_changed`, copied per change); once the changes outnumber about √N they are
merged into a new base. A change then costs O(√N) on average, and a read O(1).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from math import isqrt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from baton_workflow.domain.dag.state import StepState

_MIN_CHANGES = 32
"""Changes kept before a merge however small the run: copying a few entries costs nothing."""


class StepMap(Mapping[str, "StepState"]):
    """An immutable mapping of step id to `StepState`, in declaration order."""

    __slots__ = ("_base", "_changed")

    def __init__(
        self, base: Mapping[str, StepState], changed: Mapping[str, StepState] | None = None
    ) -> None:
        self._base: Mapping[str, StepState] = base
        self._changed: Mapping[str, StepState] = changed or {}

    def set(self, step_id: str, step: StepState) -> StepMap:
        """A map with `step_id`'s state replaced (KeyError for a step the run does not have)."""
        if step_id not in self._base:
            raise KeyError(step_id)
        changed = {**self._changed, step_id: step}
        if len(changed) > max(_MIN_CHANGES, isqrt(len(self._base))):
            return StepMap({**self._base, **changed})
        return StepMap(self._base, changed)

    def __getitem__(self, step_id: str) -> StepState:
        changed = self._changed.get(step_id)
        return changed if changed is not None else self._base[step_id]

    def __contains__(self, step_id: object) -> bool:
        return step_id in self._base

    def __iter__(self) -> Iterator[str]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)

    def __repr__(self) -> str:
        return f"StepMap({dict(self)!r})"
