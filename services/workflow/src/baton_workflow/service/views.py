"""Read-side answers: instance views, progress, the event log, and `/explain`."""

from __future__ import annotations

from datetime import datetime

from baton_contracts.workflow_api import (
    CriterionView,
    Explanation,
    InstanceView,
    ProgressView,
    StepProgress,
)
from baton_workflow.domain.criteria import CriteriaReport
from baton_workflow.domain.decide import progress
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.progress import step_progress
from baton_workflow.domain.state import InstanceState


def instance_view(
    state: InstanceState, definition: WorkflowDefinition, now: datetime
) -> InstanceView:
    """The read row for an instance's state."""
    return InstanceView(
        instance_id=state.instance_id,
        workflow_id=state.workflow_id,
        user_id=state.user_id,
        status=state.status,
        current_step=state.current_step,
        progress=progress(state, definition),
        messages_in_step=state.messages_in_step,
        context=state.context(),
        created_at=state.started_at,
        updated_at=now,
    )


def progress_view(view: InstanceView, definition: WorkflowDefinition) -> ProgressView:
    """Seed 001 component 10, from the read row."""
    done = (view.context or {}).get("steps_completed", [])
    statuses, share = step_progress(definition, view.current_step, view.status, done)
    steps = [
        StepProgress(id=s.id, title=s.title or s.id, agent_slug=s.agent_slug, status=statuses[s.id])
        for s in definition.path()
    ]
    return ProgressView(
        instance_id=view.instance_id,
        current_step=view.current_step,
        status=view.status,
        steps=steps,
        messages_in_step=view.messages_in_step,
        completion_percentage=round(share * 100, 2),
    )


def explanation(
    state: InstanceState, definition: WorkflowDefinition, report: CriteriaReport | None
) -> Explanation:
    """Each criterion of the current step with the numbers, and whether a signal would pass;
    none for a completed instance (`report` None), which nothing advances any more."""
    step = definition.step(state.current_step)
    criteria: list[CriterionView] = []
    can_complete = False
    # Checked once completed, the last step's criteria read as unmet (the signal that closed
    # it is not the current one): a client took the finished instance for a stuck one.
    if state.status == "active" and report is not None:
        # `evaluate` answers the step's criteria in their order, one result each.
        criteria = [
            CriterionView.model_validate({**r.model_dump(), "params": spec.params})
            for spec, r in zip(step.completion_criteria, report.results, strict=True)
        ]
        others_met = all(r.met for r in report.results if r.checker != "agent_signal")
        # As `decide` has it: an optional step closes on the signal alone, a required one
        # when min_messages is reached and every criterion but the signal itself passes.
        can_complete = not step.is_required or (
            state.messages_in_step >= step.min_messages and others_met
        )
    return Explanation(
        instance_id=state.instance_id,
        status=state.status,
        current_step=step.id,
        messages_in_step=state.messages_in_step,
        min_messages=step.min_messages,
        max_messages=step.max_messages,
        can_complete=can_complete,
        criteria=criteria,
    )
