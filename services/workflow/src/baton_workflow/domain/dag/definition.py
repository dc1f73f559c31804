"""The DAG workflow document (seed 004 "Structure du JSON du Workflow"), JSON or YAML.

Field names on the wire are the seed's camelCase (`dependsOn`, `handoffFrom`, ...); Python code
uses snake_case. The models only check shapes and types; every rule that relates fields or
steps lives in `validation`, so a definition reports all its problems at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import timedelta
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt
from pydantic.alias_generators import to_camel

from baton_workflow.domain.dag.durations import bounded_duration, scaled

StepType = Literal[
    "dispatch", "skill", "condition", "parallel", "handoff", "tool_call", "delay", "notify"
]
STEP_TYPES: tuple[StepType, ...] = (
    "dispatch",
    "skill",
    "condition",
    "parallel",
    "handoff",
    "tool_call",
    "delay",
    "notify",
)
OnError = Literal["stop", "skip", "retry"]
AGENT_TYPES = frozenset({"dispatch", "handoff"})
DEFAULT_AGENT = "default"
"""The agent a `dispatch` step without `agent` (or with an empty one) is run by."""
DEFAULT_RETRY_DELAY = timedelta(seconds=5)
MAX_RETRY_BACKOFF = 100.0
MAX_RETRY_MAX = 2**63 - 1
"""The most retries a step may ask for: Go's largest int, as Tetora's `retryMax` is one."""


class _Document(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=True,
        serialize_by_alias=True,
    )


class Step(_Document):
    """A WorkflowStep: one node of the DAG (or one sub-step of a `parallel` step)."""

    id: str = ""
    type: StepType = "dispatch"
    agent: str | None = None
    prompt: str | None = None
    skill: str | None = None
    skill_args: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    model: str | None = None
    provider: str | None = None
    timeout: str | None = None
    budget: StrictFloat | None = None
    permission_mode: str | None = None
    if_: str | None = Field(default=None, alias="if")
    then: str | None = None
    else_: str | None = Field(default=None, alias="else")
    handoff_from: str | None = None
    parallel: tuple[Step, ...] = ()
    retry_max: StrictInt = 0
    retry_delay: str | None = None
    retry_backoff: StrictFloat = 1.0
    on_error: OnError = "stop"
    tool_name: str | None = None
    tool_input: dict[str, str] = Field(default_factory=dict)
    delay: str | None = None
    notify_msg: str | None = None
    notify_to: str | None = None

    @property
    def timeout_delta(self) -> timedelta | None:
        """The step timeout (only call on a validated definition)."""
        return None if self.timeout is None else bounded_duration(self.timeout)

    @property
    def delay_delta(self) -> timedelta:
        """How long a `delay` step waits (only call on a validated definition)."""
        return bounded_duration(self.delay or "0")

    def retry_wait(self, failed_attempt: int) -> timedelta:
        """Wait before the attempt after `failed_attempt` (1-based): retryDelay * backoff^(n-1),
        at most the longest duration (so many retries with a backoff never overflow)."""
        given = self.retry_delay
        base = DEFAULT_RETRY_DELAY if given is None else bounded_duration(given)
        try:
            factor = self.retry_backoff ** (failed_attempt - 1)
        except OverflowError:
            factor = math.inf
        return scaled(base, factor)

    @property
    def branches(self) -> tuple[str, ...]:
        """The steps a condition step chooses between (`then`, then `else`)."""
        return tuple(t for t in (self.then, self.else_) if t)


class WorkflowDefinition(_Document):
    """A whole workflow: name, variables with defaults, steps, limits and notifications."""

    name: str = ""
    description: str = ""
    variables: dict[str, str] = Field(default_factory=dict)
    timeout: str | None = None
    budget: StrictFloat | None = None
    on_success: str | None = None
    on_failure: str | None = None
    steps: tuple[Step, ...] = ()

    @property
    def timeout_delta(self) -> timedelta | None:
        """The whole run's timeout (only call on a validated definition)."""
        return None if self.timeout is None else bounded_duration(self.timeout)

    def all_steps(self) -> Iterator[Step]:
        """Every step in declaration order, each parallel step followed by its sub-steps."""
        for step in self.steps:
            yield step
            yield from step.parallel

    @cached_property
    def index(self) -> dict[str, Step]:
        """Steps and sub-steps by id (the first one wins if ids repeat)."""
        found: dict[str, Step] = {}
        for step in self.all_steps():
            found.setdefault(step.id, step)
        return found

    @cached_property
    def parents(self) -> dict[str, str]:
        """The parallel step that holds each sub-step."""
        return {sub.id: step.id for step in self.steps for sub in step.parallel}

    @cached_property
    def dependencies(self) -> dict[str, tuple[str, ...]]:
        """What each top-level step waits for: its dependsOn plus any condition branching to it."""
        waits: dict[str, list[str]] = {}
        for step in self.steps:
            waits.setdefault(step.id, list(step.depends_on))
        for step in self.steps:
            if step.type == "condition":
                for target in step.branches:
                    if target in waits and step.id not in waits[target]:
                        waits[target].append(step.id)
        return {step_id: tuple(deps) for step_id, deps in waits.items()}

    @cached_property
    def branch_sources(self) -> dict[str, tuple[str, ...]]:
        """For each branch target, the condition steps that choose it or the other branch."""
        sources: dict[str, list[str]] = {}
        for step in self.steps:
            if step.type == "condition":
                for target in dict.fromkeys(step.branches):
                    sources.setdefault(target, []).append(step.id)
        return {target: tuple(ids) for target, ids in sources.items()}

    def step(self, step_id: str) -> Step:
        """The step or sub-step with this id (KeyError naming it otherwise)."""
        try:
            return self.index[step_id]
        except KeyError:
            raise KeyError(f"workflow {self.name!r} has no step {step_id!r}") from None

    def to_document(self) -> dict[str, Any]:
        """The definition as the JSON document a user writes (camelCase, unset fields left out)."""
        return self.model_dump(mode="json", exclude_defaults=True)
