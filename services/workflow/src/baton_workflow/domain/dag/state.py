"""A DAG run's state: the run and each of its steps, as the run's log says they are.

The pure, total fold that builds it from the log is in `fold`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from baton_workflow.domain.dag.definition import WorkflowDefinition
from baton_workflow.domain.dag.events import RunMode, RunStatus, SkipReason, StepInput
from baton_workflow.domain.dag.step_map import StepMap
from baton_workflow.domain.dag.templates import RenderContext, StepOutcome

StepStatus = Literal[
    "pending",  # not started
    "running",  # an attempt is in flight (or, for a parallel step, its sub-steps are)
    "waiting",  # a delay step waiting for its timer
    "retry_wait",  # failed; the next attempt is due at `due_at`
    "success",
    "skipped",
    "error",
    "timeout",
    "budget_exceeded",
    "cancelled",
]
FAILED: frozenset[str] = frozenset({"error", "timeout", "budget_exceeded", "cancelled"})
FINISHED: frozenset[str] = FAILED | {"success", "skipped"}


@dataclass(frozen=True, slots=True)
class StepState:
    """One step (or sub-step) of a run: status, current attempt, result and cost so far."""

    step_id: str
    status: StepStatus = "pending"
    attempt: int = 0
    output: str = ""
    error: str = ""
    input: StepInput | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    attempt_started_at: datetime | None = None
    deadline: datetime | None = None
    due_at: datetime | None = None
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    agent: str | None = None
    handoff_from: str | None = None
    branch: str | None = None
    skip_reason: SkipReason | None = None
    over_budget: str | None = None
    estimated: bool = False

    @property
    def finished(self) -> bool:
        """Success, skipped, or failed for good."""
        return self.status in FINISHED


@dataclass(frozen=True, slots=True)
class RunState:
    """Everything a run's log says: the pinned definition, inputs, each step, totals."""

    run_id: str
    workflow: str
    definition: WorkflowDefinition
    mode: RunMode
    started_at: datetime
    steps: StepMap
    version: int = 0
    version_id: str = ""
    variables: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    user_id: str = ""
    project_id: str = ""
    deadline: datetime | None = None
    budget_usd: float | None = None
    status: Literal["running"] | RunStatus = "running"
    error: str = ""
    finished_at: datetime | None = None
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cancel_requested: str | None = None
    notifications: frozenset[str] = frozenset()
    position: int = 0
    finished_steps: int = 0
    """How many steps (sub-steps included) have finished: kept by the fold, so a run's
    progress is not a count over every step at every event."""

    @property
    def finished(self) -> bool:
        """The run has completed (any status)."""
        return self.status != "running"

    def step(self, step_id: str) -> StepState:
        """A step's state (KeyError naming it otherwise)."""
        try:
            return self.steps[step_id]
        except KeyError:
            raise KeyError(f"run {self.run_id!r} has no step {step_id!r}") from None

    def idempotency_key(self, step_id: str, attempt: int) -> str:
        """The key that makes an attempt's call safe to repeat: `run:step:attempt`."""
        return f"{self.run_id}:{step_id}:{attempt}"

    @property
    def progress(self) -> float:
        """The share of steps (sub-steps included) that have finished."""
        return self.finished_steps / len(self.steps) if self.steps else 1.0

    def render_context(self) -> RenderContext:
        """What templates see now: variables, each step's outcome, the pinned env values."""
        return RenderContext(variables=self.variables, steps=_Outcomes(self.steps), env=self.env)


class _Outcomes(Mapping[str, StepOutcome]):
    """Each step's outcome, made when a template reads it: a step renders once per attempt,
    and building every step's outcome for each made starting N steps O(N²)."""

    __slots__ = ("_steps",)

    def __init__(self, steps: StepMap) -> None:
        self._steps = steps

    def __getitem__(self, step_id: str) -> StepOutcome:
        s = self._steps[step_id]
        return StepOutcome(status=_template_status(s), output=s.output, error=s.error)

    def __iter__(self) -> Iterator[str]:
        return iter(self._steps)

    def __len__(self) -> int:
        return len(self._steps)


_TEMPLATE_STATUS = {"retry_wait": "running", "waiting": "running"}


def _template_status(step: StepState) -> str:
    return _TEMPLATE_STATUS.get(step.status, step.status)
