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


def final_failure(step: Step, state: StepState) -> bool:
    """Failed for good: no retry left and not ignored by onError skip."""
    return state.status in FAILED and not ignored(step, state) and not retryable(step, state)


def stopping(state: RunState) -> bool:
    """A top-level step failed for good: onError stop (the default) ends the run."""
    return any(final_failure(s, state.step(s.id)) for s in state.definition.steps)


def first_final_failure(state: RunState) -> StepState | None:
    """The first top-level step (in declaration order) that failed for good."""
    for step in state.definition.steps:
        if final_failure(step, state.step(step.id)):
            return state.step(step.id)
    return None
