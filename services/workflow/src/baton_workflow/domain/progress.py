"""Where an instance stands on its path: each step's status and the share of the way done."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from baton_contracts.workflow_api import StepStatus
from baton_workflow.domain.definitions import WorkflowDefinition


def step_progress(
    definition: WorkflowDefinition,
    current_step: str,
    status: Literal["active", "completed"],
    steps_completed: Iterable[str],
) -> tuple[dict[str, StepStatus], float]:
    """Each step's status by id, and the steps done over the steps before the final one.

    A step the instance moved past without closing it (a signal named a later step, which
    only a step with `is_required: false` allows) is `skipped`, and counts as done: seed 000
    §7's share (greeting done, discovery active = 1/3) measures how far along the path the
    instance is, so it reaches 100% on the final step whether or not a step was skipped.
    """
    done = set(steps_completed)
    names = definition.path_ids
    behind = _behind(definition, current_step, status)
    statuses: dict[str, StepStatus] = {}
    for index, name in enumerate(names):
        if name in done:
            statuses[name] = "completed"
        elif index < behind:
            statuses[name] = "skipped"
        else:
            statuses[name] = "active" if name == current_step and status == "active" else "pending"
    return statuses, share_done(definition, current_step, status, done)


def share_done(
    definition: WorkflowDefinition,
    current_step: str,
    status: Literal["active", "completed"],
    steps_completed: Iterable[str],
) -> float:
    """`step_progress`'s share alone, without a status per step: every turn's read row and
    step event carry it, on the workflow service's busiest path. A step before the current
    one is completed or skipped, so both count; a step from the current one on counts only
    if it was completed."""
    if status == "completed":
        return 1.0
    before_final = len(definition.path_ids) - 1
    if before_final <= 0:
        return 0.0
    behind = min(_behind(definition, current_step, status), before_final)
    position = definition.path_position
    later = {name for name in steps_completed if behind <= position.get(name, -1) < before_final}
    return round((behind + len(later)) / before_final, 4)


def _behind(
    definition: WorkflowDefinition, current_step: str, status: Literal["active", "completed"]
) -> int:
    """How many steps of the path lie before the current one (all of them once completed).
    A current step no longer defined is refused at start; read it as the first."""
    if status == "completed":
        return len(definition.path_ids)
    return definition.path_position.get(current_step, 0)
