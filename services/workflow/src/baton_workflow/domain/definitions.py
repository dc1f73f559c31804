"""Conversation workflow definitions: ordered steps, each closed by checkable criteria."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from baton_contracts.agent_api import AgentSlug
from baton_contracts.ids import in_words

_ID = r"^[a-z][a-z0-9_-]{0,62}$"
_ID_FORM = "1 to 63 lower-case letters, digits, '-' or '_', starting with a letter"
# The author reads the form in words when the service refuses to start, not the regex.
WorkflowId = Annotated[
    str, StringConstraints(pattern=_ID), in_words(f"a workflow id is {_ID_FORM}")
]
StepId = Annotated[str, StringConstraints(pattern=_ID), in_words(f"a step id is {_ID_FORM}")]

# Strict: a definition is written by people, and YAML and JSON already give real bools and
# ints. Lax mode read `is_required: "false"` as False, `1` as True, `min_messages: "5"` or
# `5.0` as 5 and `true` as 1: each a mistake to point at, not a value to guess.
_STRICT = ConfigDict(frozen=True, extra="forbid", strict=True)


class CriterionSpec(BaseModel):
    """One completion criterion: a registered checker name and its parameters."""

    model_config = _STRICT

    checker: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class StepDefinition(BaseModel):
    """A step: which agent serves it, when it may close, and where it leads."""

    model_config = _STRICT

    id: StepId
    # A slug no agent profile can have loads otherwise, and every turn on the step then fails.
    agent_slug: AgentSlug
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
                f"min_messages: {self.min_messages} is above max_messages ({self.max_messages})"
            )
        return self

    @property
    def is_final(self) -> bool:
        """The last step: closing it completes the workflow."""
        return self.next_step is None


def _at(index: int, step: StepDefinition) -> str:
    return f"steps[{index}] ({step.id})"


class WorkflowDefinition(BaseModel):
    """A conversation workflow: steps in order, starting at the first, ending at the final one."""

    model_config = _STRICT

    id: WorkflowId
    title: str = ""
    description: str = ""
    steps: list[StepDefinition] = Field(min_length=1)

    @model_validator(mode="after")
    def _steps_form_one_path(self) -> WorkflowDefinition:
        # Each problem is located as `steps[i] (id).field` so the loader can name step and field.
        ids = [s.id for s in self.steps]
        for index, step in enumerate(self.steps):
            if step.id in ids[:index]:
                raise ValueError(
                    f"{_at(index, step)}.id: repeated; steps[{ids.index(step.id)}] has it too"
                )
        for index, step in enumerate(self.steps):
            if step.next_step is not None and step.next_step not in ids:
                raise ValueError(f"{_at(index, step)}.next_step: unknown step {step.next_step!r}")
        self._check_one_final()
        self._check_path_visits_all(ids)
        return self

    def _check_one_final(self) -> None:
        last = len(self.steps) - 1
        for index, step in enumerate(self.steps[:last]):
            if step.is_final:
                raise ValueError(
                    f"{_at(index, step)}.next_step: missing; "
                    "only the last step may end the workflow"
                )
        if not self.steps[last].is_final:
            raise ValueError(
                f"{_at(last, self.steps[last])}.next_step: must be left out; "
                "the last step ends the workflow"
            )

    def _check_path_visits_all(self, ids: list[str]) -> None:
        seen: set[str] = set()
        index: int | None = 0
        while index is not None:
            step = self.steps[index]
            seen.add(step.id)
            if step.next_step in seen:
                raise ValueError(
                    f"{_at(index, step)}.next_step: {step.next_step!r} comes earlier on the "
                    "path; next_step may not form a cycle"
                )
            index = None if step.next_step is None else ids.index(step.next_step)
        for index, step in enumerate(self.steps):
            if step.id not in seen:
                raise ValueError(
                    f"{_at(index, step)}: never reached from {ids[0]!r}; no next_step leads to it"
                )

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

    @cached_property
    def path_ids(self) -> tuple[str, ...]:
        """The path's step ids, in order (computed once)."""
        return tuple(step.id for step in self.ordered_steps)

    @cached_property
    def path_position(self) -> dict[str, int]:
        """Each step's index on the path (computed once)."""
        return {name: index for index, name in enumerate(self.path_ids)}

    def checker_names(self) -> set[str]:
        """Every checker any step names (to verify against the registry at load time)."""
        return {c.checker for s in self.steps for c in s.completion_criteria}


def stranded(
    active: Mapping[tuple[str, str], int], definitions: Mapping[str, WorkflowDefinition]
) -> list[str]:
    """What would strand active instances: `active` counts them by (workflow id, current step);
    a workflow they are of (one line for all its steps) or a step they are on that
    `definitions` no longer has is a problem each."""
    gone: dict[str, dict[str, int]] = {}  # a dropped workflow's counts by step
    problems = []
    for (workflow_id, step_id), count in sorted(active.items()):
        definition = definitions.get(workflow_id)
        if definition is None:
            gone.setdefault(workflow_id, {})[step_id] = count
        elif step_id not in definition.step_index:
            problems.append(
                f"{workflow_id}.steps: no step {step_id!r}, but {count} active instance(s) are "
                "on it; keep the step until they have moved on"
            )
    for workflow_id, steps in gone.items():
        on = ", ".join(f"{count} on {step!r}" for step, count in steps.items())
        problems.append(
            f"{workflow_id}: no longer defined, but {sum(steps.values())} active instance(s) "
            f"are of it ({on}); keep it until they have completed"
        )
    return sorted(problems)
