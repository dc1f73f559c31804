"""Each step's status and the share done, for a path where one step may be skipped."""

from __future__ import annotations

import pytest

from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.progress import share_done, step_progress

PATH = WorkflowDefinition.model_validate(
    {
        "id": "intake",
        "steps": [
            {"id": "hello", "agent_slug": "a", "next_step": "survey"},
            {"id": "survey", "agent_slug": "a", "is_required": False, "next_step": "notes"},
            {"id": "notes", "agent_slug": "a", "next_step": "wrap"},
            {"id": "wrap", "agent_slug": "a"},
        ],
    }
)


@pytest.mark.parametrize(
    ("current", "status", "completed", "statuses", "share"),
    [
        ("hello", "active", [], ["active", "pending", "pending", "pending"], 0.0),
        ("survey", "active", ["hello"], ["completed", "active", "pending", "pending"], 0.3333),
        # hello closed with a signal naming notes: survey is behind the instance, not ahead
        ("notes", "active", ["hello"], ["completed", "skipped", "active", "pending"], 0.6667),
        ("wrap", "active", ["hello", "notes"], ["completed", "skipped", "completed", "active"], 1),
        (
            "wrap",
            "completed",
            ["hello", "notes", "wrap"],
            ["completed", "skipped", "completed", "completed"],
            1.0,
        ),
    ],
)
def test_a_step_the_instance_moved_past_unclosed_is_skipped_and_counts_as_done(
    current: str, status: str, completed: list[str], statuses: list[str], share: float
) -> None:
    found, done = step_progress(PATH, current, status, completed)  # type: ignore[arg-type]
    assert list(found) == ["hello", "survey", "notes", "wrap"]
    assert list(found.values()) == statuses
    assert done == share


def test_the_share_alone_agrees_with_the_statuses_for_every_state() -> None:
    """`share_done` (every turn's read row and step event) counts what `step_progress`
    calls completed or skipped, for every current step and every set of closed steps, a
    step unknown to the definition and a step closed twice included."""
    names = ["hello", "survey", "notes", "wrap"]
    for current in [*names, "gone"]:
        for mask in range(1 << len(names)):
            closed = [n for i, n in enumerate(names) if mask >> i & 1]
            for completed in (closed, closed + closed[:1], [*closed, "gone"]):
                for status in ("active", "completed"):
                    found, _ = step_progress(PATH, current, status, completed)  # type: ignore[arg-type]
                    passed = sum(found[n] in ("completed", "skipped") for n in names[:-1])
                    expected = 1.0 if status == "completed" else round(passed / 3, 4)
                    share = share_done(PATH, current, status, completed)  # type: ignore[arg-type]
                    assert share == expected, (current, status, completed)
