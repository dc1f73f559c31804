"""Conversation workflow definitions: ordered steps, each closed by checkable criteria."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

_ID = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")


class CriterionSpec(BaseModel):
    """One completion criterion: a registered checker name and its parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    checker: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class StepDefinition(BaseModel):
    """A step: which agent serves it, when it may close, and where it leads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=_ID.pattern)
    agent_slug: str = Field(min_length=1)
    completion_criteria: list[CriterionSpec] = Field(default_factory=list)
    next_step: str | None = None
    is_required: bool = True
    min_messages: int = Field(default=0, ge=0)
    max_messages: int = Field(default=50, ge=1)
    title: str = ""

    @model_validator(mode="after")
    def _min_not_above_max(self) -> StepDefinition:
        if self.min_messages > self.max_messages:
            raise ValueError(
                f"min_messages ({self.min_messages}) is above max_messages ({self.max_messages})"
            )
        return self

    @property
    def is_final(self) -> bool:
        """The last step: closing it completes the workflow."""
        return self.next_step is None


class WorkflowDefinition(BaseModel):
    """A conversation workflow: steps in order, starting at the first, ending at the final one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=_ID.pattern)
    title: str = ""
    description: str = ""
    steps: list[StepDefinition] = Field(min_length=1)

    @model_validator(mode="after")
    def _steps_form_one_path(self) -> WorkflowDefinition:
        ids = [s.id for s in self.steps]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"step ids must be unique; repeated: {', '.join(duplicates)}")
        for index, step in enumerate(self.steps):
            if step.next_step is not None and step.next_step not in ids:
                raise ValueError(f"steps[{index}].next_step: unknown step {step.next_step!r}")
        finals = [s.id for s in self.steps if s.is_final]
        if len(finals) != 1 or finals[0] != ids[-1]:
            raise ValueError("exactly one step, the last, must have no next_step (the final step)")
        self._check_path_visits_all(ids)
        return self

    def _check_path_visits_all(self, ids: list[str]) -> None:
        seen: list[str] = []
        current: str | None = ids[0]
        while current is not None:
            if current in seen:
                raise ValueError(f"next_step forms a cycle through {current!r}")
            seen.append(current)
            current = self.step(current).next_step
        unreachable = [i for i in ids if i not in seen]
        if unreachable:
            raise ValueError(f"steps never reached from {ids[0]!r}: {', '.join(unreachable)}")

    @cached_property
    def step_index(self) -> dict[str, StepDefinition]:
        """Steps by id (computed once: every turn looks steps up)."""
        return {s.id: s for s in self.steps}

    def step(self, step_id: str) -> StepDefinition:
        """The step with this id (KeyError naming it otherwise)."""
        try:
            return self.step_index[step_id]
        except KeyError:
            raise KeyError(f"workflow {self.id!r} has no step {step_id!r}") from None

    @property
    def first_step(self) -> StepDefinition:
        """Where every instance starts."""
        return self.steps[0]

    def path(self) -> list[StepDefinition]:
        """Steps in the order an instance walks them."""
        return list(self.ordered_steps)

    @cached_property
    def ordered_steps(self) -> tuple[StepDefinition, ...]:
        """The path, computed once."""
        ordered = [self.first_step]
        while ordered[-1].next_step is not None:
            ordered.append(self.step(ordered[-1].next_step))
        return tuple(ordered)

    def checker_names(self) -> set[str]:
        """Every checker any step names (to verify against the registry at load time)."""
        return {c.checker for s in self.steps for c in s.completion_criteria}
