"""The pure, total fold that builds a DAG run's state (`state.RunState`) from the run's log.

`apply` records one event: the run's own events change the run, a step's events change that
step (and the run's totals), and a late or repeated result changes nothing. `fold` is a reduce
over `apply`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from baton_contracts.money import usd
from baton_workflow.domain.dag.events import (
    ConditionEvaluated,
    DelayStarted,
    NotificationRequested,
    RetryScheduled,
    RunCancelRequested,
    RunCompleted,
    RunEvent,
    RunStarted,
    StepFailed,
    StepSkipped,
    StepStarted,
    StepSucceeded,
)
from baton_workflow.domain.dag.pricing import shown
from baton_workflow.domain.dag.state import FAILED, RunState, StepState
from baton_workflow.domain.dag.step_map import StepMap


def fold(events: Iterable[RunEvent], state: RunState | None = None) -> RunState | None:
    """The state after `events`, starting from `state` (None: from the beginning)."""
    for event in events:
        state = apply(state, event)
    return state


def apply(state: RunState | None, event: RunEvent) -> RunState:
    """The state after one event. Records facts; a late or repeated result changes nothing."""
    if isinstance(event, RunStarted):
        return _start(event)
    if state is None:
        raise ValueError(f"{event.type} cannot come before workflow_run.started")
    return replace(_apply_to(state, event), position=state.position + 1)


def _start(event: RunStarted) -> RunState:
    steps = StepMap({s.id: StepState(s.id) for s in event.definition.all_steps()})
    return RunState(
        run_id=event.run_id,
        workflow=event.workflow,
        definition=event.definition,
        mode=event.mode,
        started_at=event.at,
        steps=steps,
        version=event.version,
        version_id=event.version_id,
        variables=dict(event.variables),
        env=dict(event.env),
        user_id=event.user_id,
        project_id=event.project_id,
        deadline=event.deadline,
        budget_usd=event.budget_usd,
        position=1,
    )


_STEP_EVENTS = (
    StepStarted,
    StepSucceeded,
    StepFailed,
    RetryScheduled,
    StepSkipped,
    ConditionEvaluated,
    DelayStarted,
)


def _apply_to(state: RunState, event: RunEvent) -> RunState:
    match event:
        case RunCompleted():
            return replace(state, status=event.status, error=event.error, finished_at=event.at)
        case RunCancelRequested():
            return replace(state, cancel_requested=state.cancel_requested or event.reason)
        case NotificationRequested():
            return replace(state, notifications=state.notifications | {event.idempotency_key})
        case RunStarted():  # pragma: no cover - handled by apply
            raise ValueError("a run starts only once")
    if state.finished or not isinstance(event, _STEP_EVENTS) or event.step_id not in state.steps:
        return state
    step = state.steps[event.step_id]
    updated = _apply_to_step(state, step, event)
    if updated is step:
        return state
    spent = updated.cost_usd - step.cost_usd
    tokens = (updated.tokens_in - step.tokens_in, updated.tokens_out - step.tokens_out)
    return replace(
        state,
        steps=state.steps.set(step.step_id, updated),
        finished_steps=state.finished_steps + updated.finished - step.finished,
        cost_usd=usd(state.cost_usd + spent),
        tokens_in=state.tokens_in + tokens[0],
        tokens_out=state.tokens_out + tokens[1],
    )


def _apply_to_step(state: RunState, step: StepState, event: RunEvent) -> StepState:
    match event:
        case StepStarted() if step.status in ("pending", "retry_wait"):
            return _started(step, event)
        case StepSucceeded() if _is_current(step, event.attempt):
            return _succeed(state, step, event)
        case StepFailed() if _is_current(step, event.attempt) or _fails_budget(step, event):
            return _failed(step, event)
        case RetryScheduled() if step.status in FAILED:
            return replace(step, status="retry_wait", due_at=event.due_at, finished_at=None)
        case StepSkipped() if step.status not in ("success", "skipped"):
            return _skipped(step, event)
        case ConditionEvaluated() if step.status in ("pending", "retry_wait"):
            return _decided(step, event)
        case DelayStarted() if step.status in ("pending", "retry_wait"):
            return _waiting(step, event)
    return step


def _waiting(step: StepState, event: DelayStarted) -> StepState:
    return replace(
        step,
        status="waiting",
        attempt=step.attempt + 1,
        started_at=step.started_at or event.at,
        attempt_started_at=event.at,
        due_at=event.due_at,
        error="",
    )


def _decided(step: StepState, event: ConditionEvaluated) -> StepState:
    return replace(
        step,
        status="success",
        attempt=step.attempt + 1,  # 1 but after a failed attempt (a value too long, retried)
        branch=event.branch,
        output=event.branch or "",
        started_at=event.at,
        finished_at=event.at,
    )


def _started(step: StepState, event: StepStarted) -> StepState:
    return replace(
        step,
        status="running",
        attempt=event.attempt,
        input=event.input,
        started_at=step.started_at or event.at,
        attempt_started_at=event.at,
        deadline=event.deadline,
        due_at=None,
        output="",
        error="",
    )


def _failed(step: StepState, event: StepFailed) -> StepState:
    return replace(
        step,
        status=event.status,
        error=event.error,
        finished_at=event.at,
        deadline=None,
        cost_usd=usd(step.cost_usd + event.cost_usd),
        tokens_in=step.tokens_in + event.tokens_in,
        tokens_out=step.tokens_out + event.tokens_out,
        over_budget=None,
    )


def _skipped(step: StepState, event: StepSkipped) -> StepState:
    # onError skip keeps the failure's message readable as {{steps.ID.error}}
    error = (step.error or event.detail) if event.reason == "on_error_skip" else step.error
    return replace(
        step,
        status="skipped",
        skip_reason=event.reason,
        error=error,
        finished_at=event.at,
        deadline=None,
        due_at=None,
    )


def _is_current(step: StepState, attempt: int) -> bool:
    return step.status in ("running", "waiting") and attempt == step.attempt


def _fails_budget(step: StepState, event: StepFailed) -> bool:
    return (
        step.status == "success"
        and event.status == "budget_exceeded"
        and event.attempt == step.attempt
        and step.over_budget is not None
    )


def _succeed(state: RunState, step: StepState, event: StepSucceeded) -> StepState:
    return replace(
        step,
        status="success",
        output=event.output,
        finished_at=event.at,
        deadline=None,
        due_at=None,
        cost_usd=usd(step.cost_usd + event.cost_usd),
        tokens_in=step.tokens_in + event.tokens_in,
        tokens_out=step.tokens_out + event.tokens_out,
        agent=event.agent,
        handoff_from=event.handoff_from,
        estimated=event.estimated,
        over_budget=_over_budget(state, step.step_id, event.cost_usd),
    )


def _over_budget(state: RunState, step_id: str, cost: float) -> str | None:
    """Why this result breaks a budget: the step's own, or the run's once it is added."""
    limit = state.definition.step(step_id).budget
    if limit is not None and cost > limit:
        return f"step cost {shown(cost)} exceeded its budget {shown(limit)}"
    total = usd(state.cost_usd + cost)
    if state.budget_usd is not None and total > state.budget_usd:
        return f"run cost {shown(total)} exceeded the run budget {shown(state.budget_usd)}"
    return None
