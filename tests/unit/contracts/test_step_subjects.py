"""A step's start names its agent in the subject, so an agent's owner can consume only its own."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from baton_contracts import REGISTRY, STREAMS, subject_matches
from baton_contracts.workflow import (
    NO_AGENT,
    StepChanged,
    WorkflowCompleted,
    WorkflowStarted,
    agent_token,
)


def changed(agent: str | None) -> StepChanged:
    return StepChanged(
        event_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
        user_id="ann",
        workflow_id="onboarding",
        instance_id="i1",
        previous_step="discovery",
        current_step="brain_dump",
        progress=0.66,
        current_agent=agent,
    )


def started(agent: str | None) -> WorkflowStarted:
    return WorkflowStarted(
        event_id=uuid.uuid4(),
        occurred_at=datetime.now(UTC),
        user_id="ann",
        workflow_id="onboarding",
        instance_id="i1",
        initial_step="greeting",
        initial_agent=agent,
    )


def test_a_step_start_ends_its_subject_with_the_agent() -> None:
    assert changed("inbox_collector").wire_subject() == (
        "workflow.evt.step_changed.ann.i1.inbox_collector"
    )
    assert started("greeter").wire_subject() == "workflow.evt.started.ann.i1.greeter"


@pytest.mark.parametrize("agent", [None, "", "in.box", "a b", "*", "x>"])
def test_a_step_without_an_agent_that_could_be_a_token_says_none(agent: str | None) -> None:
    assert agent_token(agent) == NO_AGENT
    assert changed(agent).wire_subject() == "workflow.evt.step_changed.ann.i1.-"
    assert started(agent).wire_subject() == "workflow.evt.started.ann.i1.-"


def test_a_filter_fixes_the_keys_it_is_given_and_refuses_others() -> None:
    subject = StepChanged.subject
    assert subject.filter(agent_token="greeter") == "workflow.evt.step_changed.*.*.greeter"
    assert subject.filter(user_id="ann") == "workflow.evt.step_changed.ann.*.*"
    assert subject.filter() == subject.pattern
    with pytest.raises(ValueError, match="no key agent"):
        WorkflowCompleted.subject.filter(agent="greeter")


def test_the_events_stream_captures_both_layouts_of_a_step_start() -> None:
    """A workflow service not yet upgraded still publishes `...step_changed.<user>.<instance>`."""
    events = next(s for s in STREAMS if s.name == "WORKFLOW_EVT")
    for subject in (
        changed("greeter").wire_subject(),
        "workflow.evt.step_changed.ann.i1",
        started("greeter").wire_subject(),
        "workflow.evt.started.ann.i1",
    ):
        assert [s.name for s in REGISTRY.streams_for(subject)] == ["WORKFLOW_EVT"]
        assert any(subject_matches(p, subject) for p in events.subjects)
