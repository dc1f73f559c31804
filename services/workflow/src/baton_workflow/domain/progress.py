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
    names = [s.id for s in definition.path()]
    if status == "completed":
        behind = len(names)
    else:  # a current step no longer defined is refused at start; read it as the first
        behind = names.index(current_step) if current_step in names else 0
    statuses: dict[str, StepStatus] = {}
    for index, name in enumerate(names):
        if name in done:
            statuses[name] = "completed"
        elif index < behind:
            statuses[name] = "skipped"
        else:
            statuses[name] = "active" if name == current_step and status == "active" else "pending"
    if status == "completed":
        return statuses, 1.0
    before_final = names[:-1]
    passed = sum(statuses[name] in ("completed", "skipped") for name in before_final)
    return statuses, round(passed / len(before_final), 4) if before_final else 0.0
