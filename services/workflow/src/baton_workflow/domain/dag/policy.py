"""onError as seed 004 defines it: which failures are retried, ignored, or stop the run."""

from __future__ import annotations

from baton_workflow.domain.dag.definition import Step
from baton_workflow.domain.dag.state import FAILED, RunState, StepState


def retryable(step: Step, state: StepState) -> bool:
    """onError retry with attempts left; errors and timeouts only (a budget is never retried)."""
    return (
        step.on_error == "retry"
        and state.status in ("error", "timeout")
        and state.attempt <= step.retry_max
    )


def ignored(step: Step, state: StepState) -> bool:
    """onError skip: the failure becomes a skip (a cancellation is never ignored)."""
    return step.on_error == "skip" and state.status in FAILED and state.status != "cancelled"


def final_failure(step: Step, state: StepState, *, stopping: bool = False) -> bool:
    """Failed for good: not ignored by onError skip, and no retry left, or, while the run is
    `stopping`, none coming (a stopping run schedules no retry)."""
    if state.status not in FAILED or ignored(step, state):
        return False
    return stopping or not retryable(step, state)


def stopping(state: RunState) -> bool:
    """A top-level step failed for good: onError stop (the default) ends the run."""
    return first_final_failure(state) is not None


def first_final_failure(state: RunState) -> StepState | None:
    """The first top-level step (in declaration order) that failed for good."""
    for step in state.definition.steps:
        if final_failure(step, state.step(step.id)):
            return state.step(step.id)
    return None
