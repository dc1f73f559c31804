"""A step that sets no `timeout` gets the default of its type; the run's deadline still cuts."""

from __future__ import annotations

from datetime import timedelta

from baton_workflow.domain.dag.actions import CancelStep
from baton_workflow.domain.dag.events import StepStarted
from baton_workflow.domain.dag.timeouts import DefaultTimeouts

from .conftest import Run, at, brief, workflow

DEFAULTS = DefaultTimeouts(agent=timedelta(minutes=5), tool=timedelta(seconds=30))
STEPS = (
    {"id": "ask", "agent": "hisui", "prompt": "x"},
    {"id": "fetch", "type": "tool_call", "toolName": "echo", "toolInput": {"text": "t"}},
    {"id": "search", "type": "skill", "skill": "web-search", "skillArgs": ["q"]},
    {"id": "own", "prompt": "y", "timeout": "10m"},
)


def started(run: Run) -> dict[str, StepStarted]:
    return {e.step_id: e for e in run.events if isinstance(e, StepStarted)}


def test_a_step_without_a_timeout_gets_the_default_of_its_type_not_the_run_deadline() -> None:
    run = Run(workflow(*STEPS, timeout="1h"), timeouts=DEFAULTS)
    decision = run.decide(0)
    deadlines = {step_id: e.deadline for step_id, e in started(run).items()}
    assert deadlines == {"ask": at(300), "fetch": at(30), "search": at(30), "own": at(600)}
    calls = {c.step_id: c.deadline for c in decision.actions}  # type: ignore[union-attr]
    assert calls == {"ask": at(300), "fetch": at(30), "search": at(30), "own": at(600)}
    assert decision.wake_at == at(30)


def test_a_step_past_its_default_timeout_ends_timeout_and_its_call_is_cancelled() -> None:
    run = Run(workflow(STEPS[0], STEPS[1], timeout="1h"), timeouts=DEFAULTS)
    run.decide(0)
    run.succeed("fetch", "t")
    assert run.decide(299).events == ()
    decision = run.decide(300)
    assert brief(decision.events) == [("step_failed", "ask", "timeout"), ("completed", "error")]
    error = "step timed out after 5m (the default timeout: the step sets none)"
    assert run.state.step("ask").error == error
    assert decision.actions[0] == CancelStep(
        run_id="run-1", step_id="ask", attempt=1, idempotency_key="run-1:ask:1", reason=error
    )


def test_the_recorded_default_deadline_holds_after_a_restart_under_other_settings() -> None:
    run = Run(workflow(STEPS[1]), timeouts=DEFAULTS)
    run.decide(0)
    run.timeouts = DefaultTimeouts(tool=timedelta(hours=1))  # the service came back changed
    assert run.call("fetch").deadline == at(30)
    assert brief(run.decide(30).events) == [
        ("step_failed", "fetch", "timeout"),
        ("completed", "error"),
    ]
    assert run.state.step("fetch").error == (
        "step timed out after 30s (the default timeout: the step sets none)"
    )


def test_the_run_deadline_still_cuts_a_step_before_its_default() -> None:
    run = Run(workflow(STEPS[0], timeout="1m"), timeouts=DEFAULTS)
    run.decide(0)
    assert run.call("ask").deadline == at(60)
    assert brief(run.decide(60).events) == [
        ("step_failed", "ask", "cancelled"),
        ("completed", "timeout"),
    ]


def test_steps_that_call_nothing_get_no_default_deadline() -> None:
    document = workflow(
        {"id": "wait", "type": "delay", "delay": "1h"},
        {"id": "tell", "type": "notify", "notifyMsg": "hi"},
        {"id": "gather", "type": "parallel", "parallel": [STEPS[0]]},
    )
    run = Run(document, timeouts=DEFAULTS)
    run.decide(0)
    deadlines = {step_id: e.deadline for step_id, e in started(run).items()}
    assert deadlines == {"tell": None, "gather": None, "ask": at(300)}
