"""How a run ends: when every step has finished, at its timeout, or when it is cancelled."""

from __future__ import annotations

from baton_workflow.domain.dag.actions import CALLED_TYPES, CancelStep, FinishRun, Notify
from baton_workflow.domain.dag.batch import Batch
from baton_workflow.domain.dag.definition import Step
from baton_workflow.domain.dag.events import (
    NotificationKind,
    NotificationRequested,
    RunCompleted,
    RunStatus,
    SkipReason,
)
from baton_workflow.domain.dag.policy import first_final_failure
from baton_workflow.domain.dag.templates import notification_text


def complete_if_done(batch: Batch) -> None:
    """Complete the run once every step and sub-step has finished."""
    state = batch.state
    if state.finished or not all(s.finished for s in state.steps.values()):
        return
    failed = first_final_failure(state)
    if failed is None:
        complete(batch, "success", "")
    else:
        error = f'step "{failed.step_id}" failed ({failed.status}): {failed.error}'
        complete(batch, "error", error)


def end_run(batch: Batch, status: RunStatus, error: str, reason: SkipReason) -> None:
    """Stop everything now (run timeout or cancellation) and complete the run."""
    for step in batch.state.definition.all_steps():
        stop_step(batch, step, error, reason)
    complete(batch, status, error)


def stop_step(batch: Batch, step: Step, error: str, reason: SkipReason) -> None:
    """Cancel a step in flight (or waiting on its timer); skip one not started yet."""
    status = batch.state.step(step.id).status
    if status in ("running", "waiting"):
        cancel_call(batch, step, error)
        batch.fail(step.id, error, "cancelled")
    elif status in ("pending", "retry_wait"):
        batch.skip(step.id, reason, error)


def cancel_call(batch: Batch, step: Step, reason: str) -> None:
    """Tell the executor to cancel the step's call, if it has one in flight."""
    state = batch.state.step(step.id)
    if state.status == "running" and step.type in CALLED_TYPES:
        batch.act(
            CancelStep(
                run_id=batch.state.run_id,
                step_id=step.id,
                attempt=state.attempt,
                idempotency_key=batch.state.idempotency_key(step.id, state.attempt),
                reason=reason,
            )
        )


def complete(batch: Batch, status: RunStatus, error: str) -> None:
    """Send onSuccess / onFailure (not in a dry run), then record the end with its totals."""
    state = batch.state
    kind: NotificationKind = "on_success" if status == "success" else "on_failure"
    template = state.definition.on_success if status == "success" else state.definition.on_failure
    if template and state.mode != "dry_run":
        text = notification_text(template, state.render_context())
        key = f"{state.run_id}:{kind}"
        batch.emit(
            NotificationRequested(
                run_id=state.run_id, at=batch.now, kind=kind, text=text, idempotency_key=key
            )
        )
        batch.act(Notify(run_id=state.run_id, idempotency_key=key, kind=kind, text=text))
    state = batch.state
    batch.emit(
        RunCompleted(
            run_id=state.run_id,
            at=batch.now,
            status=status,
            error=error,
            cost_usd=state.cost_usd,
            tokens_in=state.tokens_in,
            tokens_out=state.tokens_out,
            estimated=state.mode == "dry_run",
        )
    )
    batch.act(FinishRun(run_id=state.run_id, status=status))
