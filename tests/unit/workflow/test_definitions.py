"""Definition validation: each rule names the step and field it concerns."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from baton_workflow.domain.definitions import WorkflowDefinition

from .conftest import load


def steps(*specs: dict[str, Any]) -> dict[str, Any]:
    return {"id": "wf", "steps": list(specs)}


def step(step_id: str, nxt: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "agent_slug": "a", "next_step": nxt, **extra}


def test_shipped_definitions_follow_the_seeds() -> None:
    onboarding, classic = load("onboarding.yaml"), load("onboarding-classic.yaml")
    limits = [(s.id, s.min_messages, s.max_messages) for s in onboarding.path()]
    assert limits == [
        ("greeting", 2, 10),
        ("discovery", 5, 30),
        ("brain_dump", 3, 20),
        ("setup_complete", 1, 1),
    ]
    assert onboarding.step("discovery").completion_criteria[1].params == {
        "min_facts": 3,
        "category": "priorities",
    }
    assert [s.id for s in classic.path()][-1] == "completed"
    assert classic.step("brain_dump").completion_criteria[1].checker == "widget_completed"


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (steps(step("a", "b"), step("b")) | {"id": "Bad Id"}, "id"),
        (steps(step("a", "zzz"), step("b")), "steps[0].next_step: unknown step 'zzz'"),
        (steps(step("a", "b"), step("b", "a")), "exactly one step, the last"),
        (steps(step("a"), step("b")), "exactly one step, the last"),
        (steps(step("a", "a"), step("b")), "cycle"),
        (steps(step("a", "b"), step("a")), "repeated: a"),
        (steps(step("a", min_messages=5, max_messages=2)), "min_messages (5) is above"),
        (steps(step("a", surprise=1)), "surprise"),
        (steps(), "steps"),
    ],
)
def test_invalid_definitions_say_what_is_wrong(document: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError) as caught:
        WorkflowDefinition.model_validate(document)
    assert problem in str(caught.value)
