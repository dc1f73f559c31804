"""The seed's examples, run by the pure scheduler: given past events, when deciding, then events."""

from __future__ import annotations

from baton_workflow.domain.dag.actions import CallAgent, CallSkill, CallTool, FinishRun, Notify
from baton_workflow.domain.dag.events import (
    DelayStarted,
    NotificationRequested,
    RunCompleted,
    StepInput,
    StepStarted,
    StepSucceeded,
)

from .conftest import (
    CONDITION,
    DELAY,
    HANDOFF,
    NOTIFY,
    PARALLEL,
    RESEARCH,
    TOOL_CALL,
    Run,
    at,
    brief,
    workflow,
)

RESEARCH_PROMPT = "Search and organize the latest developments in AI agents, listing 5 key points"


def test_research_and_summarize_runs_step_after_step() -> None:
    run = Run(RESEARCH)

    first = run.decide(0)
    assert first.events == (
        StepStarted(
            run_id="run-1",
            at=at(0),
            step_id="research",
            attempt=1,
            idempotency_key="run-1:research:1",
            input=StepInput(prompt=RESEARCH_PROMPT, agent="hisui"),
        ),
    )
    assert first.actions == (
        CallAgent(
            run_id="run-1",
            step_id="research",
            attempt=1,
            idempotency_key="run-1:research:1",
            deadline=at(1800),  # no step timeout: the run's, 30m, is the call's deadline
            agent="hisui",
            prompt=RESEARCH_PROMPT,
        ),
    )
    assert first.wake_at == at(1800)  # the workflow timeout, 30m

    run.succeed("research", "1. memory\n2. tools", cost_usd=0.25, tokens_in=100, tokens_out=40)
    second = run.decide(5)
    assert brief(second.events) == [("step_started", "summarize")]
    [call] = second.actions
    assert isinstance(call, CallAgent)
    assert (call.agent, call.idempotency_key) == ("kohaku", "run-1:summarize:1")
    assert call.prompt == ("Write a 300-word summary based on the following:\n1. memory\n2. tools")

    run.succeed("summarize", "A summary.", cost_usd=0.5, tokens_in=60, tokens_out=300)
    third = run.decide(9)
    assert third.events == (
        RunCompleted(
            run_id="run-1",
            at=at(9),
            status="success",
            cost_usd=0.75,
            tokens_in=160,
            tokens_out=340,
        ),
    )
    assert third.actions == (FinishRun(run_id="run-1", status="success"),)
    assert third.wake_at is None


def test_variables_given_to_the_run_override_defaults() -> None:
    run = Run(RESEARCH, variables={"topic": "LLM safety"})
    [call] = run.decide(0).actions
    assert isinstance(call, CallAgent)
    assert "latest developments in LLM safety" in call.prompt


def test_deciding_again_without_news_decides_nothing() -> None:
    run = Run(RESEARCH)
    run.decide(0)
    again = run.decide(1)
    assert (again.events, again.actions) == ((), ())


def test_steps_without_dependencies_start_together() -> None:
    run = Run(TOOL_CALL)
    decision = run.decide(0)
    assert brief(decision.events) == [
        ("step_started", "fetch-data"),
        ("step_started", "search"),
    ]
    assert decision.actions == (
        CallTool(
            run_id="run-1",
            step_id="fetch-data",
            attempt=1,
            idempotency_key="run-1:fetch-data:1",
            tool_name="http-get",
            tool_input={"url": "https://api.example.com/data?q=AI agents"},
        ),
        CallSkill(
            run_id="run-1",
            step_id="search",
            attempt=1,
            idempotency_key="run-1:search:1",
            skill="web-search",
            args=("AI agents", "--depth", "3"),
        ),
    )


def test_condition_takes_then_and_skips_else_downstream_still_runs() -> None:
    run = Run(CONDITION)
    decision = run.decide(0)
    assert brief(decision.events) == [
        ("condition_evaluated", "check-type", "tech-research"),
        ("step_skipped", "creative-draft", "branch_not_taken"),
        ("step_started", "tech-research"),
    ]
    assert decision.events[1].detail == 'condition "check-type" was true and chose "tech-research"'  # type: ignore[union-attr]
    run.succeed("tech-research", "deep dive")
    decision = run.decide(1)
    assert brief(decision.events) == [("step_started", "publish")]
    [call] = decision.actions
    assert isinstance(call, CallAgent)
    assert call.prompt == "Publish: deep dive"  # the skipped step renders ""


def test_condition_false_takes_else() -> None:
    run = Run(CONDITION, variables={"type": "creative"})
    assert brief(run.decide(0).events) == [
        ("condition_evaluated", "check-type", "creative-draft"),
        ("step_skipped", "tech-research", "branch_not_taken"),
        ("step_started", "creative-draft"),
    ]
    assert run.state.step("check-type").output == "creative-draft"


def test_condition_false_without_else_skips_then() -> None:
    document = workflow(
        {"id": "c", "type": "condition", "if": "{{go}}", "then": "a"},
        {"id": "a", "prompt": "x"},
        {"id": "z", "prompt": "after", "dependsOn": ["a"]},
        variables={"go": "false"},
    )
    run = Run(document)
    assert brief(run.decide(0).events) == [
        ("condition_evaluated", "c", None),
        ("step_skipped", "a", "branch_not_taken"),
        ("step_started", "z"),
    ]


def test_a_skipped_condition_skips_both_of_its_branches() -> None:
    document = workflow(
        {"id": "c1", "type": "condition", "if": "false", "then": "c2", "else": "b"},
        {"id": "c2", "type": "condition", "if": "true", "then": "x", "else": "y"},
        {"id": "b", "prompt": "b"},
        {"id": "x", "prompt": "x"},
        {"id": "y", "prompt": "y"},
    )
    run = Run(document)
    assert brief(run.decide(0).events) == [
        ("condition_evaluated", "c1", "b"),
        ("step_skipped", "c2", "branch_not_taken"),
        ("step_started", "b"),
        ("step_skipped", "x", "condition_skipped"),
        ("step_skipped", "y", "condition_skipped"),
    ]


def test_parallel_sub_steps_start_together_and_join_in_declaration_order() -> None:
    run = Run(PARALLEL)
    decision = run.decide(0)
    assert brief(decision.events) == [
        ("step_started", "gather"),
        ("step_started", "search-papers"),
        ("step_started", "search-code"),
    ]
    assert [a.step_id for a in decision.actions] == ["search-papers", "search-code"]  # type: ignore[union-attr]
    run.succeed("search-code", "code results")  # finishes first
    assert brief(run.decide(1).events) == []
    run.succeed("search-papers", "paper results")
    decision = run.decide(2)
    assert brief(decision.events) == [
        ("step_succeeded", "gather"),
        ("step_started", "report"),
    ]
    assert run.state.step("gather").output == "paper results\n---\ncode results"
    [call] = decision.actions
    assert isinstance(call, CallAgent)
    assert call.prompt == "Papers: paper results\nAll: paper results\n---\ncode results"


def test_handoff_gives_the_source_output_to_the_receiving_agent() -> None:
    run = Run(HANDOFF)
    [draft] = run.decide(0).actions
    assert isinstance(draft, CallAgent)
    assert (draft.model, draft.deadline) == ("claude-sonnet-4-20250514", at(600))
    run.succeed("draft", "The article.")
    [review] = run.decide(1).actions
    assert review == CallAgent(
        run_id="run-1",
        step_id="review",
        attempt=1,
        idempotency_key="run-1:review:1",
        agent="ruri",
        prompt="Review and revise the article",
        handoff_from="draft",
        handoff_context="The article.",
    )
    run.succeed("review", "Revised.", agent="ruri")
    assert run.events[-1] == StepSucceeded(
        run_id="run-1",
        at=at(1),
        step_id="review",
        attempt=1,
        output="Revised.",
        agent="ruri",
        handoff_from="draft",
    )
    assert brief(run.decide(2).events) == [("completed", "success")]


def test_handoff_from_a_step_that_did_not_succeed_fails() -> None:
    document = workflow(
        {"id": "draft", "prompt": "x", "onError": "skip"},
        {
            "id": "review",
            "type": "handoff",
            "agent": "ruri",
            "handoffFrom": "draft",
            "dependsOn": ["draft"],
        },
    )
    run = Run(document)
    run.decide(0)
    run.fail("draft", "model unavailable")
    decision = run.decide(1)
    assert brief(decision.events) == [
        ("step_skipped", "draft", "on_error_skip"),
        ("step_started", "review"),
        ("step_failed", "review", "error"),
        ("completed", "error"),
    ]
    assert run.state.step("review").error == 'handoff source "draft" did not succeed (skipped)'


def test_delay_waits_on_a_timer_then_succeeds() -> None:
    run = Run(DELAY)
    decision = run.decide(0)
    assert decision.events == (
        DelayStarted(run_id="run-1", at=at(0), step_id="wait", due_at=at(30)),
    )
    assert (decision.actions, decision.wake_at) == ((), at(30))
    assert run.decide(29).events == ()
    decision = run.decide(30)
    assert brief(decision.events) == [
        ("step_succeeded", "wait"),
        ("step_started", "after"),
    ]
    assert run.state.step("wait").output == "waited 30s"


def test_a_delay_that_fires_late_says_how_late() -> None:
    """Due while the workflow service was down, it fires when the service is back: its output
    says so, not that it waited the 30 s it was given."""
    run = Run(DELAY)
    run.decide(0)
    assert brief(run.decide(130).events)[0] == ("step_succeeded", "wait")
    assert run.state.step("wait").output == "waited 30s, fired 1m40s late"


def test_notify_publishes_the_rendered_message() -> None:
    run = Run(NOTIFY)
    run.decide(0)
    run.succeed("review", "LGTM")
    decision = run.decide(1)
    assert brief(decision.events) == [
        ("step_started", "notify-done"),
        ("notification_requested", "step", "Task complete: LGTM"),
        ("step_succeeded", "notify-done"),
        ("completed", "success"),
    ]
    assert decision.events[1] == NotificationRequested(
        run_id="run-1",
        at=at(1),
        kind="step",
        step_id="notify-done",
        text="Task complete: LGTM",
        notify_to="telegram",
        idempotency_key="run-1:notify-done:1",
    )
    assert decision.actions == (
        Notify(
            run_id="run-1",
            idempotency_key="run-1:notify-done:1",
            kind="step",
            text="Task complete: LGTM",
            notify_to="telegram",
            step_id="notify-done",
        ),
        FinishRun(run_id="run-1", status="success"),
    )


def test_a_channel_hint_rendered_past_its_limit_fails_the_step_and_sends_nothing() -> None:
    # Rendered from a step's output, a hint had no limit: one past the 1 MiB a NATS message
    # carries stopped the outbox for every user.
    document = {**NOTIFY, "steps": [dict(s) for s in NOTIFY["steps"]]}
    document["steps"][1]["notifyTo"] = "{{steps.review.output}}"
    for output, problem in [
        ("t" * 201, "has 201 characters; a channel hint takes at most 200"),
        ("slack\n#ops", "a channel hint is one line, without control characters"),
    ]:
        run = Run(document)
        run.decide(0)
        run.succeed("review", output)
        decision = run.decide(1)
        assert brief(decision.events) == [
            ("step_started", "notify-done"),
            ("step_failed", "notify-done", "error"),
            ("completed", "error"),
        ]
        assert not any(isinstance(a, Notify) for a in decision.actions)
        assert run.state.step("notify-done").error == f"notifyTo, once rendered, {problem}"
        assert decision.events[0].input.notify_to is None  # type: ignore[attr-defined]
    run = Run(document)
    run.decide(0)
    run.succeed("review", "t" * 200)
    assert brief(run.decide(1).events)[1] == (
        "notification_requested",
        "step",
        "Task complete: " + "t" * 200,
    )


def test_on_success_and_on_failure_templates_are_sent() -> None:
    document = workflow(
        {"id": "a", "prompt": "x"},
        onSuccess="Done: {{steps.a.output}}",
        onFailure="Failed: {{steps.a.error}}",
    )
    good = Run(document)
    good.decide(0)
    good.succeed("a", "42")
    decision = good.decide(1)
    assert brief(decision.events) == [
        ("notification_requested", "on_success", "Done: 42"),
        ("completed", "success"),
    ]
    assert decision.actions[0] == Notify(
        run_id="run-1", idempotency_key="run-1:on_success", kind="on_success", text="Done: 42"
    )
    bad = Run(document)
    bad.decide(0)
    bad.fail("a", "rate limited")
    assert brief(bad.decide(1).events) == [
        ("notification_requested", "on_failure", "Failed: rate limited"),
        ("completed", "error"),
    ]
