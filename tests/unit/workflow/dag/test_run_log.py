"""The run log: events as stored payloads, a pure total fold, and recovery after a crash."""

from __future__ import annotations

import json

import pytest

from baton_workflow.domain.dag.actions import in_flight
from baton_workflow.domain.dag.events import (
    ConditionEvaluated,
    DelayStarted,
    NotificationRequested,
    RetryScheduled,
    RunCancelRequested,
    RunCompleted,
    RunEvent,
    StepFailed,
    StepInput,
    StepSkipped,
    StepStarted,
    StepSucceeded,
    from_payload,
    to_payload,
)
from baton_workflow.domain.dag.fold import apply, fold
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.scheduler import start_run

from .conftest import DELAY, HANDOFF, PARALLEL, RESEARCH, RETRY, T0, Run, at, brief


def every_event() -> list[RunEvent]:
    started = start_run(
        parse_definition(RESEARCH),
        run_id="r",
        now=T0,
        variables={"topic": "x"},
        env={"REGION": "eu"},
        mode="shadow",
        version=3,
        version_id="v-3",
        user_id="alice",
        project_id="p",
    )
    common = {"run_id": "r", "at": at(1)}
    return [
        started,
        StepStarted(
            **common,
            step_id="research",
            attempt=1,
            idempotency_key="r:research:1",
            input=StepInput(prompt="p", tool_input={"a": "b"}, args=("x",)),
            deadline=at(60),
        ),
        StepSucceeded(**common, step_id="research", attempt=1, output="o", cost_usd=0.5),
        StepFailed(**common, step_id="research", attempt=1, status="timeout", error="e"),
        RetryScheduled(**common, step_id="research", attempt=2, due_at=at(10)),
        StepSkipped(**common, step_id="summarize", reason="run_stopped", detail="d"),
        ConditionEvaluated(**common, step_id="c", result=True, branch="x"),
        DelayStarted(**common, step_id="w", due_at=at(30)),
        NotificationRequested(
            **common, kind="on_success", text="t", idempotency_key="r:on_success"
        ),
        RunCancelRequested(**common, reason="by bob"),
        RunCompleted(**common, status="success", cost_usd=1.5, tokens_in=1, tokens_out=2),
    ]


@pytest.mark.parametrize("event", every_event(), ids=lambda e: e.type)
def test_every_event_survives_the_store(event: RunEvent) -> None:
    payload = json.loads(json.dumps(to_payload(event)))
    assert payload["type"] == event.type
    assert from_payload(event.type, payload) == event


def test_a_run_keeps_its_definition_document_whole() -> None:
    started = every_event()[0]
    payload = to_payload(started)
    assert payload["definition"] == parse_definition(RESEARCH).to_document()
    assert payload["definition"]["steps"][1]["dependsOn"] == ["research"]
    assert (payload["deadline"], payload["version"], payload["env"]) == (
        "2026-11-22T09:30:00Z",
        3,
        {"REGION": "eu"},
    )


def test_type_strings_are_stable() -> None:
    assert [e.type for e in every_event()] == [
        "workflow_run.started",
        "workflow_run.step_started",
        "workflow_run.step_succeeded",
        "workflow_run.step_failed",
        "workflow_run.retry_scheduled",
        "workflow_run.step_skipped",
        "workflow_run.condition_evaluated",
        "workflow_run.delay_started",
        "workflow_run.notification_requested",
        "workflow_run.cancel_requested",
        "workflow_run.completed",
    ]


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(
        ValueError, match="unknown workflow run event type 'workflow.instance_started'"
    ):
        from_payload("workflow.instance_started", {})


def test_nothing_comes_before_the_start() -> None:
    with pytest.raises(ValueError, match="cannot come before workflow_run.started"):
        apply(None, every_event()[2])


def test_a_repeated_result_counts_once() -> None:
    run = Run(RESEARCH)
    run.decide(0)
    run.succeed("research", "o", cost_usd=0.5)
    run.events.append(run.events[-1])
    assert run.state.cost_usd == 0.5
    assert run.state.step("research").status == "success"


def test_results_for_unknown_steps_or_after_the_end_change_nothing() -> None:
    run = Run(RESEARCH)
    run.decide(0)
    before = run.state
    ghost = StepSucceeded(run_id="run-1", at=at(1), step_id="ghost", attempt=1, output="x")
    after = apply(before, ghost)
    assert after.steps == before.steps and after.position == before.position + 1


def test_a_crash_after_a_start_reissues_the_same_call() -> None:
    run = Run(HANDOFF)
    [call] = run.decide(0).actions
    restarted = fold(list(run.events))  # the executor restarts and reads the log
    assert restarted is not None
    assert in_flight(restarted) == [call]
    assert run.decide(5).events == ()  # never started twice


def test_a_crash_during_a_delay_wakes_on_time() -> None:
    run = Run(DELAY)
    run.decide(0)
    restarted = fold(list(run.events))
    assert restarted is not None and in_flight(restarted) == []
    assert brief(run.decide(31).events) == [("step_succeeded", "wait"), ("step_started", "after")]


def test_a_crash_during_a_retry_wait_keeps_the_attempt_count() -> None:
    run = Run(RETRY)
    run.decide(0)
    run.fail("flaky-step")
    run.decide(0)
    decision = run.decide(10)
    assert decision.actions[0].idempotency_key == "run-1:flaky-step:2"  # type: ignore[union-attr]


def test_in_flight_lists_every_running_call_but_not_the_parallel_step() -> None:
    run = Run(PARALLEL)
    run.decide(0)
    assert [c.step_id for c in in_flight(run.state)] == ["search-papers", "search-code"]


def test_state_reads_like_status() -> None:
    run = Run(RESEARCH)
    run.decide(0)
    run.succeed("research", "o", cost_usd=0.1, tokens_in=10, tokens_out=5, agent="hisui")
    run.decide(2)
    state = run.state
    research = state.step("research")
    assert (research.status, research.attempt, research.agent) == ("success", 1, "hisui")
    assert (research.started_at, research.finished_at) == (at(0), at(0))
    assert state.step("summarize").input == StepInput(
        prompt="Write a 300-word summary based on the following:\no", agent="kohaku"
    )
    assert (state.workflow, state.mode, state.deadline) == (
        "research-and-summarize",
        "live",
        at(1800),
    )
    assert state.render_context().steps["summarize"].status == "running"
    with pytest.raises(KeyError, match="has no step 'nope'"):
        state.step("nope")
