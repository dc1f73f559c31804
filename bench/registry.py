"""The case registry: `@case(name)` on an async function that returns result rows."""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


class Skip(Exception):
    """A case cannot run here (say why: e.g. PostgreSQL unreachable)."""


@dataclass(frozen=True)
class Row:
    """One measured line: what ran, how fast, and how long one operation took."""

    label: str
    ops: int
    ops_per_s: float
    p50_ms: float | None = None
    p99_ms: float | None = None
    note: str = ""
    p95_ms: float | None = None
    agent_run_ms: float | None = None
    """For a target row: the CPU ms of the bare `agent.run()` (`reference.pydantic_ai`'s
    `NativeOutput` agent) timed just before and just after the row's trials, averaged: the
    host's speed while the row ran (`bench.beside`)."""


@dataclass(frozen=True)
class Options:
    """What every case gets: quick mode shrinks the work to a smoke run of one trial."""

    quick: bool = False
    postgres_url: str = ""
    trials: int = 3
    """Runs of each target row; the row reports the median one (`measure.median_of`)."""

    @property
    def target_trials(self) -> int:
        """How many times a row with a target runs: one in quick mode."""
        return 1 if self.quick else self.trials

    def size(self, full: int, quick: int) -> int:
        """The number of operations for this mode."""
        return quick if self.quick else full


CaseFn = Callable[[Options], Awaitable[list[Row]]]


@dataclass(frozen=True)
class Case:
    """A named benchmark."""

    name: str
    fn: CaseFn
    description: str = ""


@dataclass
class Registry:
    """Cases by name, in registration order."""

    cases: dict[str, Case] = field(default_factory=dict)

    def select(self, patterns: list[str]) -> list[Case]:
        """Cases whose name matches any glob (all when no pattern is given)."""
        if not patterns:
            return list(self.cases.values())
        return [c for n, c in self.cases.items() if any(fnmatch.fnmatch(n, p) for p in patterns)]


REGISTRY = Registry()


def case(name: str, description: str = "") -> Callable[[CaseFn], CaseFn]:
    """Register an async benchmark function under `name` (e.g. `eventstore.append.sqlite`)."""

    def register(fn: CaseFn) -> CaseFn:
        if name in REGISTRY.cases:
            raise ValueError(f"name: benchmark case {name!r} is registered twice")
        REGISTRY.cases[name] = Case(name, fn, description or (fn.__doc__ or "").strip())
        return fn

    return register
