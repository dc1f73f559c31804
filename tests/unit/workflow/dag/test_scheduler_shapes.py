"""Less common shapes: a parallel step as a branch, timers inside a parallel step, the graph."""

from __future__ import annotations

from datetime import timedelta

from baton_workflow.domain.dag.actions import CallAgent
from baton_workflow.domain.dag.graph import ancestors, find_cycles
from baton_workflow.domain.dag.parsing import parse_definition

from .conftest import Run, at, brief, workflow


def test_a_parallel_step_on_the_branch_not_taken_skips_its_sub_steps() -> None:
    document = workflow(
        {"id": "c", "type": "condition", "if": "false", "then": "gather", "else": "solo"},
        {"id": "gather", "type": "parallel", "parallel": [{"id": "p", "prompt": "p"}]},
        {"id": "solo", "prompt": "s"},
    )
    run = Run(document)
    assert brief(run.decide(0).events) == [
        ("condition_evaluated", "c", "solo"),
        ("step_skipped", "gather", "branch_not_taken"),
        ("step_skipped", "p", "branch_not_taken"),
        ("step_started", "solo"),
    ]
    run.succeed("solo", "done")
    assert brief(run.decide(1).events) == [("completed", "success")]


def test_a_step_after_a_skipped_parallel_step_sees_its_sub_steps_skipped() -> None:
    # They were skipped only after the steps waiting on the parallel step had started in the
    # same pass, so `{{steps.p.status}}` rendered `pending` there.
    document = workflow(
        {"id": "c", "type": "condition", "if": "false", "then": "gather"},
        {"id": "gather", "type": "parallel", "parallel": [{"id": "p", "prompt": "p"}]},
        {"id": "tell", "type": "notify", "notifyMsg": "p {{steps.p.status}}",
         "dependsOn": ["gather"]},
    )  # fmt: skip
    run = Run(document)
    decided = brief(run.decide(0).events)
    assert ("notification_requested", "step", "p skipped") in decided
    assert run.statuses()["p"] == "skipped"


def test_delay_and_notify_inside_a_parallel_step() -> None:
    document = workflow(
        {
            "id": "g",
            "type": "parallel",
            "parallel": [
                {"id": "w", "type": "delay", "delay": "2s"},
                {"id": "n", "type": "notify", "notifyMsg": "started"},
            ],
        }
    )
    run = Run(document)
    decision = run.decide(0)
    assert brief(decision.events) == [
        ("step_started", "g"),
        ("delay_started", "w"),
        ("step_started", "n"),
        ("notification_requested", "step", "started"),
        ("step_succeeded", "n"),
    ]
    assert decision.wake_at == at(2)
    assert brief(run.decide(2).events) == [
        ("step_succeeded", "w"),
        ("step_succeeded", "g"),
        ("completed", "success"),
    ]
    assert run.state.step("g").output == "waited 2s\n---\nstarted"


def test_calls_carry_the_step_timeout_and_the_attempt_deadline() -> None:
    run = Run(
        workflow(
            {"id": "a", "prompt": "x", "timeout": "1m30s", "agent": "{{who}}"},
            variables={"who": "hisui"},
        )
    )
    [call] = run.decide(10).actions
    assert isinstance(call, CallAgent)
    assert (call.timeout, call.deadline, call.agent) == (timedelta(seconds=90), at(100), "hisui")


def test_a_call_is_due_by_the_run_deadline_when_that_comes_before_its_own() -> None:
    run = Run(
        workflow(
            {"id": "a", "timeout": "1m", "type": "skill", "skill": "word-count"},
            {"id": "b", "prompt": "y", "timeout": "1h", "dependsOn": ["a"]},
            timeout="10m",
        )
    )
    [first] = run.decide(0).actions
    assert first.deadline == at(60)  # its own timeout ends first
    run.succeed("a", "3")
    [second] = run.decide(30).actions
    assert isinstance(second, CallAgent)
    assert second.deadline == at(600)  # the run's ends first: the agent-runner stops then too
    assert second.timeout == timedelta(hours=1)


def test_graph_ancestors_include_condition_edges() -> None:
    definition = parse_definition(
        workflow(
            {"id": "a", "prompt": "a"},
            {"id": "c", "type": "condition", "if": "true", "then": "b", "dependsOn": ["a"]},
            {"id": "b", "prompt": "b"},
            {"id": "d", "prompt": "d", "dependsOn": ["b"]},
        )
    )
    assert ancestors(definition, "d") == {"a", "b", "c"}
    assert ancestors(definition, "a") == set()
    assert definition.dependencies["b"] == ("c",)
    assert find_cycles(definition) == []


def test_a_long_condition_the_validation_accepts_is_decided() -> None:
    # A run of 2,000 `&&` once made evaluation recurse past Python's limit: the decision
    # crashed on every attempt and the run stayed `running` for good.
    document = workflow(
        {"id": "c", "type": "condition", "if": "1 && " * 2000 + "1", "then": "a", "else": "b"},
        {"id": "a", "prompt": "a"},
        {"id": "b", "prompt": "b"},
    )
    run = Run(document)
    assert brief(run.decide(0).events)[:2] == [
        ("condition_evaluated", "c", "a"),
        ("step_skipped", "b", "branch_not_taken"),
    ]
