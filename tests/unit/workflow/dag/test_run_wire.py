"""What a run's log publishes to live clients: a `workflow.run_step_changed` per status change."""

from __future__ import annotations

import uuid

from baton_contracts import workflow as wire
from baton_workflow.service.dag_wire import wire_events

from .conftest import CONDITION, Run


def test_every_step_that_changes_status_is_published_a_condition_included() -> None:
    run = Run(CONDITION)
    run.decide(0)
    run.succeed("tech-research", "deep dive")
    run.decide(1)
    run.succeed("publish", "published")
    run.decide(2)
    assert run.state.finished

    published, _ = wire_events(None, run.events, [uuid.uuid4() for _ in run.events])
    changes = [(e.step_id, e.status) for e in published if isinstance(e, wire.RunStepChanged)]

    assert ("check-type", "success") in changes  # a live view does not leave it "pending"
    assert {step_id for step_id, _ in changes} == set(run.state.steps)
    final = {step_id: status for step_id, status in changes}  # each step's last change
    assert final == {step_id: s.status for step_id, s in run.state.steps.items()}
