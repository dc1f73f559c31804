"""onError stop / skip / retry (with backoff), parallel sub-step retries, timeouts, cancellation."""

from __future__ import annotations

from datetime import timedelta

from baton_workflow.domain.dag.actions import CallAgent, CancelStep, FinishRun
from baton_workflow.domain.dag.durations import MAX_DURATION
from baton_workflow.domain.dag.events import RetryScheduled, RunCancelRequested, StepFailed
from baton_workflow.domain.dag.parsing import parse_definition

from .conftest import RETRY, Run, at, brief, workflow


def test_retry_waits_retry_delay_then_starts_the_next_attempt() -> None:
    run = Run(RETRY)
    run.decide(0)
    run.fail("flaky-step", "rate limited")
    decision = run.decide(1)
    assert decision.events == (
        RetryScheduled(run_id="run-1", at=at(1), step_id="flaky-step", attempt=2, due_at=at(11)),
    )
    assert decision.wake_at == at(11)
    assert run.state.step("flaky-step").status == "retry_wait"
    assert run.decide(10).events == ()
    decision = run.decide(11)
    assert brief(decision.events) == [("step_started", "flaky-step")]
    [call] = decision.actions
    assert (call.attempt, call.idempotency_key) == (2, "run-1:flaky-step:2")  # type: ignore[union-attr]


def test_retry_gives_up_after_retry_max_extra_attempts_then_stops() -> None:
    run = Run(RETRY)
    run.decide(0)
    for attempt, second in ((1, 0), (2, 10), (3, 20)):
        run.decide(second)
        run.fail("flaky-step", f"failure {attempt}")
        assert brief(run.decide(second).events) == [("retry_scheduled", "flaky-step")]
    run.decide(30)
    assert run.call("flaky-step").attempt == 4
    run.fail("flaky-step", "failure 4")
    decision = run.decide(30)
    assert brief(decision.events) == [("completed", "error")]
    assert run.state.error == 'step "flaky-step" failed (error): failure 4'


def test_retry_backoff_multiplies_the_delay() -> None:
    document = workflow(
        {
            "id": "a",
            "prompt": "x",
            "onError": "retry",
            "retryMax": 3,
            "retryDelay": "10s",
            "retryBackoff": 2,
        }
    )
    run = Run(document)
    due = []
    now = 0.0
    run.decide(now)
    for _ in range(3):
        run.fail("a")
        [event] = run.decide(now).events
        assert isinstance(event, RetryScheduled)
        due.append((event.due_at - at(now)).total_seconds())
        now = (event.due_at - at(0)).total_seconds()
        run.decide(now)
    assert due == [10, 20, 40]


def test_retry_waits_stop_growing_at_the_longest_duration() -> None:
    document = workflow(
        {"id": "a", "prompt": "x", "onError": "retry", "retryMax": 100_000,
         "retryDelay": "2562047h", "retryBackoff": 100},
    )  # fmt: skip
    step = parse_definition(document).steps[0]
    assert step.retry_wait(1) == timedelta(hours=2562047)
    assert step.retry_wait(2) == step.retry_wait(100_000) == MAX_DURATION
    run = Run(document)
    run.decide(0)
    run.fail("a")
    [event] = run.decide().events
    assert isinstance(event, RetryScheduled) and event.due_at == at(0) + timedelta(hours=2562047)
    run.now = event.due_at
    assert brief(run.decide().events) == [("step_started", "a")]
    run.fail("a")
    [event] = run.decide().events  # unclamped, this wait would pass datetime's last year
    assert isinstance(event, RetryScheduled) and event.due_at == run.now + MAX_DURATION


def test_retry_delay_defaults_to_five_seconds() -> None:
    run = Run(workflow({"id": "a", "prompt": "x", "onError": "retry", "retryMax": 1}))
    run.decide(0)
    run.fail("a")
    [event] = run.decide(0).events
    assert isinstance(event, RetryScheduled) and event.due_at == at(5)


def test_retry_max_without_on_error_retry_does_nothing() -> None:
    run = Run(workflow({"id": "a", "prompt": "x", "retryMax": 3}))
    run.decide(0)
    run.fail("a")
    assert brief(run.decide(0).events) == [("completed", "error")]


def test_stop_skips_what_remains_and_waits_for_what_is_in_flight() -> None:
    document = workflow(
        {"id": "a", "prompt": "a"},
        {"id": "b", "prompt": "b"},
        {"id": "c", "prompt": "c", "dependsOn": ["a"]},
        {"id": "d", "prompt": "d", "dependsOn": ["c"]},
    )
    run = Run(document)
    run.decide(0)
    run.fail("a", "bad answer")
    decision = run.decide(1)
    assert brief(decision.events) == [
        ("step_skipped", "c", "run_stopped"),
        ("step_skipped", "d", "run_stopped"),
    ]
    assert run.state.step("c").skip_reason == "run_stopped"
    run.succeed("b", "fine")
    decision = run.decide(2)
    assert brief(decision.events) == [("completed", "error")]
    assert decision.events[0].error == 'step "a" failed (error): bad answer'  # type: ignore[union-attr]
    assert decision.actions == (FinishRun(run_id="run-1", status="error"),)


def test_skip_marks_the_failed_step_skipped_and_the_run_continues() -> None:
    document = workflow(
        {"id": "a", "prompt": "a", "onError": "skip"},
        {
            "id": "b",
            "prompt": "a was {{steps.a.status}}: {{steps.a.error}} [{{steps.a.output}}]",
            "dependsOn": ["a"],
        },
    )
    run = Run(document)
    run.decide(0)
    run.fail("a", "dead host")
    decision = run.decide(1)
    assert brief(decision.events) == [
        ("step_skipped", "a", "on_error_skip"),
        ("step_started", "b"),
    ]
    [call] = decision.actions
    assert call.prompt == "a was skipped: dead host []"  # type: ignore[union-attr]
    run.succeed("b", "ok")
    assert brief(run.decide(2).events) == [("completed", "success")]


def test_each_parallel_sub_step_retries_on_its_own() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [
                {"id": "p", "prompt": "p", "onError": "retry", "retryMax": 1, "retryDelay": "1s"},
                {"id": "q", "prompt": "q"},
            ],
        }
    )
    run = Run(document)
    run.decide(0)
    run.fail("p", "flaky")
    run.succeed("q", "Q")
    assert brief(run.decide(0).events) == [("retry_scheduled", "p")]
    decision = run.decide(1)
    assert brief(decision.events) == [("step_started", "p")]
    run.succeed("p", "P")
    assert brief(run.decide(2).events) == [
        ("step_succeeded", "gather"),
        ("completed", "success"),
    ]
    assert run.state.step("gather").output == "P\n---\nQ"


def test_a_failed_sub_step_fails_its_parallel_step_once_all_have_finished() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [{"id": "p", "prompt": "p"}, {"id": "q", "prompt": "q"}],
        },
        {"id": "after", "prompt": "z", "dependsOn": ["gather"]},
    )
    run = Run(document)
    run.decide(0)
    run.fail("p", "boom")
    assert brief(run.decide(1).events) == []  # q is still running
    run.succeed("q", "Q")
    assert brief(run.decide(2).events) == [
        ("step_failed", "gather", "error"),
        ("step_skipped", "after", "run_stopped"),
        ("completed", "error"),
    ]
    assert run.state.step("gather").error == 'sub-step "p" error: boom'


def test_a_parallel_step_with_skip_lets_the_run_continue() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "onError": "skip",
            "parallel": [{"id": "p", "prompt": "p"}, {"id": "q", "prompt": "q", "onError": "skip"}],
        },
        {"id": "after", "prompt": "z", "dependsOn": ["gather"]},
    )
    run = Run(document)
    run.decide(0)
    run.fail("q", "ignored")
    run.fail("p", "fatal")
    assert brief(run.decide(1).events) == [
        ("step_skipped", "q", "on_error_skip"),
        ("step_failed", "gather", "error"),
        ("step_skipped", "gather", "on_error_skip"),
        ("step_started", "after"),
    ]


def test_a_stop_that_abandons_a_sub_step_skips_its_parallel_step_too() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [
                {"id": "p", "prompt": "p", "onError": "retry", "retryMax": 3, "retryDelay": "10s"},
                {"id": "q", "prompt": "q"},
                {"id": "w", "type": "delay", "delay": "1h"},
            ],
        },
        {"id": "x", "prompt": "x"},
    )
    run = Run(document)
    run.decide(0)
    run.fail("p", "flaky")
    run.succeed("q", "Q")
    assert brief(run.decide(1).events) == [("retry_scheduled", "p")]
    run.fail("x", "x broke")
    assert brief(run.decide(2).events) == [
        ("step_skipped", "p", "run_stopped"),
        ("step_skipped", "w", "run_stopped"),
        ("step_skipped", "gather", "run_stopped"),
        ("completed", "error"),
    ]
    gather = run.state.step("gather")
    assert (gather.status, gather.output) == ("skipped", "")  # never a partial join
    assert gather.error == ""
    assert run.state.error == 'step "x" failed (error): x broke'


def test_a_sub_step_failing_while_the_run_stops_is_not_retried_and_its_join_fails() -> None:
    document = workflow(
        {"id": "a", "prompt": "a"},
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [
                {"id": "s", "prompt": "s", "onError": "retry", "retryMax": 2, "retryDelay": "1s"}
            ],
        },
    )
    run = Run(document)
    run.decide(0)
    run.fail("a", "a broke")
    assert run.decide(1).events == ()  # s is in flight: it finishes first
    run.fail("s", "s broke")
    decision = run.decide(2)
    assert brief(decision.events) == [("step_failed", "gather", "error"), ("completed", "error")]
    assert run.state.step("s").attempt == 1  # the stopping run gave it no second attempt
    assert run.state.step("gather").error == 'sub-step "s" error: s broke'
    assert run.state.error == 'step "a" failed (error): a broke'
    assert decision.wake_at is None


def test_a_step_failing_while_the_run_stops_is_not_retried_and_the_cause_is_named() -> None:
    document = workflow(
        {"id": "b", "prompt": "b", "onError": "retry", "retryMax": 2, "retryDelay": "1s"},
        {"id": "a", "prompt": "a"},
    )
    run = Run(document)
    run.decide(0)
    run.fail("a", "a broke")
    assert run.decide(1).events == ()
    run.fail("b", "b broke")
    assert brief(run.decide(2).events) == [("completed", "error")]
    assert (run.state.step("b").status, run.state.step("b").attempt) == ("error", 1)
    assert run.state.error == 'step "a" failed (error): a broke'


def test_failures_seen_together_stop_the_run_without_a_retry() -> None:
    document = workflow(
        {"id": "a", "prompt": "a"},
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [{"id": "s", "prompt": "s", "onError": "retry", "retryMax": 2}],
        },
    )
    run = Run(document)
    run.decide(0)
    run.fail("s", "s broke")
    run.fail("a", "a broke")
    assert brief(run.decide(1).events) == [
        ("step_failed", "gather", "error"),
        ("completed", "error"),
    ]


def test_a_skipped_sub_step_is_left_out_of_the_join() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [{"id": "p", "prompt": "p", "onError": "skip"}, {"id": "q", "prompt": "q"}],
        }
    )
    run = Run(document)
    run.decide(0)
    run.fail("p")
    run.succeed("q", "only q")
    run.decide(1)
    assert run.state.step("gather").output == "only q"
    assert run.state.status == "success"


def test_a_step_timeout_fails_the_step_and_cancels_the_call() -> None:
    run = Run(workflow({"id": "slow", "prompt": "x", "timeout": "10m"}))
    assert run.decide(0).wake_at == at(600)
    assert run.decide(599).events == ()
    decision = run.decide(600)
    assert decision.events[0] == StepFailed(
        run_id="run-1",
        at=at(600),
        step_id="slow",
        attempt=1,
        status="timeout",
        error="step timed out after 10m",
    )
    assert decision.actions[0] == CancelStep(
        run_id="run-1",
        step_id="slow",
        attempt=1,
        idempotency_key="run-1:slow:1",
        reason="step timed out after 10m",
    )
    assert brief(decision.events)[1:] == [("completed", "error")]


def test_a_timed_out_step_can_be_retried() -> None:
    document = workflow(
        {"id": "slow", "prompt": "x", "timeout": "1m", "onError": "retry", "retryMax": 1}
    )
    run = Run(document)
    run.decide(0)
    assert brief(run.decide(60).events) == [
        ("step_failed", "slow", "timeout"),
        ("retry_scheduled", "slow"),
    ]


def test_a_delay_longer_than_its_step_timeout_times_out_and_can_be_retried() -> None:
    document = workflow(
        {"id": "wait", "type": "delay", "delay": "10s", "timeout": "2s", "onError": "retry",
         "retryMax": 1, "retryDelay": "1s"},
        {"id": "after", "prompt": "Never", "dependsOn": ["wait"]},
    )  # fmt: skip
    run = Run(document)
    assert run.decide(0).wake_at == at(2)  # the timeout, not the delay
    assert brief(run.decide(2).events) == [
        ("step_failed", "wait", "timeout"),
        ("retry_scheduled", "wait"),
    ]
    assert run.state.step("wait").error == "step timed out after 2s"
    assert brief(run.decide(3).events) == [("delay_started", "wait")]  # attempt 2 waits again
    assert run.state.step("wait").attempt == 2
    assert brief(run.decide(5).events) == [
        ("step_failed", "wait", "timeout"),
        ("step_skipped", "after", "run_stopped"),
        ("completed", "error"),
    ]


def test_a_delay_within_its_step_timeout_succeeds() -> None:
    run = Run(workflow({"id": "wait", "type": "delay", "delay": "2s", "timeout": "2s"}))
    assert run.decide(0).wake_at == at(2)
    assert brief(run.decide(2).events) == [("step_succeeded", "wait"), ("completed", "success")]


def test_a_late_result_after_a_timeout_is_ignored() -> None:
    document = workflow(
        {"id": "slow", "prompt": "x", "timeout": "1m", "onError": "retry", "retryMax": 1}
    )
    run = Run(document)
    run.decide(0)
    late = run.call("slow")
    run.decide(60)
    run.events.append(late.succeeded(at(61), "too late", cost_usd=1.0))
    state = run.state
    assert (state.step("slow").status, state.step("slow").output) == ("retry_wait", "")
    assert state.cost_usd == 0


def test_the_workflow_timeout_ends_the_run() -> None:
    document = workflow(
        {"id": "a", "prompt": "a"},
        {"id": "b", "prompt": "b", "dependsOn": ["a"]},
        {"id": "w", "type": "delay", "delay": "1h"},
        timeout="1m",
    )
    run = Run(document)
    run.decide(0)
    decision = run.decide(60)
    assert brief(decision.events) == [
        ("step_failed", "a", "cancelled"),
        ("step_skipped", "b", "run_timed_out"),
        ("step_failed", "w", "cancelled"),
        ("completed", "timeout"),
    ]
    assert decision.actions == (
        CancelStep(
            run_id="run-1",
            step_id="a",
            attempt=1,
            idempotency_key="run-1:a:1",
            reason="workflow timed out after 1m",
        ),
        FinishRun(run_id="run-1", status="timeout"),
    )
    assert run.decide(61).events == ()


def test_a_parallel_step_timeout_cancels_its_sub_steps() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "timeout": "30s",
            "onError": "skip",
            "parallel": [
                {"id": "p", "prompt": "p"},
                {"id": "q", "prompt": "q", "onError": "retry", "retryMax": 2, "retryDelay": "1m"},
            ],
        }
    )
    run = Run(document)
    run.decide(0)
    run.fail("q")
    run.decide(1)
    decision = run.decide(30)
    assert brief(decision.events) == [
        ("step_failed", "p", "cancelled"),
        ("step_skipped", "q", "parallel_timed_out"),
        ("step_failed", "gather", "timeout"),
        ("step_skipped", "gather", "on_error_skip"),
        ("completed", "success"),
    ]
    assert [type(a).__name__ for a in decision.actions] == ["CancelStep", "FinishRun"]


def test_cancelling_a_run_cancels_what_is_in_flight() -> None:
    run = Run(workflow({"id": "a", "prompt": "a"}, {"id": "b", "prompt": "b", "dependsOn": ["a"]}))
    run.decide(0)
    run.events.append(RunCancelRequested(run_id="run-1", at=at(5), reason="by alice"))
    decision = run.decide(5)
    assert brief(decision.events) == [
        ("step_failed", "a", "cancelled"),
        ("step_skipped", "b", "run_cancelled"),
        ("completed", "cancelled"),
    ]
    assert run.state.error == "run cancelled: by alice"
    assert isinstance(decision.actions[0], CancelStep)


def test_shadow_runs_mark_agent_calls_as_shadow() -> None:
    run = Run(workflow({"id": "a", "prompt": "a"}), mode="shadow")
    [call] = run.decide(0).actions
    assert isinstance(call, CallAgent) and call.shadow
