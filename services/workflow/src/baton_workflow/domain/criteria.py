"""What a criteria check found, in a form `decide` and `/explain` can read without I/O."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CriterionResult(BaseModel):
    """One checker's verdict on the current step, with the numbers behind it."""

    model_config = ConfigDict(frozen=True)

    checker: str
    met: bool
    detail: str = ""
    observed: int | None = None
    required: int | None = None
    error: bool = False

    def describe(self) -> str:
        """`memory_facts: 2/3 facts in 'priorities'`, or `inbox_items: checker error: ...`."""
        return f"{self.checker}: {self.detail}" if self.detail else self.checker


class CriteriaReport(BaseModel):
    """Every criterion of one step, checked at one moment."""

    model_config = ConfigDict(frozen=True)

    step: str
    results: tuple[CriterionResult, ...] = ()

    @property
    def all_met(self) -> bool:
        """True when no criterion is unmet."""
        return all(r.met for r in self.results)

    def missing(self) -> list[str]:
        """A line per unmet criterion."""
        return [r.describe() for r in self.results if not r.met]
