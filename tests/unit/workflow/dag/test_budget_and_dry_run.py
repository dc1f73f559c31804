"""Budgets (per step and per run) and dry runs priced from a pricing table, with no calls."""

from __future__ import annotations

import math
from typing import Any

import pytest

from baton_workflow.domain.dag.actions import CallAgent, FinishRun
from baton_workflow.domain.dag.events import RunCompleted, StepSucceeded
from baton_workflow.domain.dag.pricing import ModelPrice, PricingTable, estimate_tokens

from .conftest import CONDITION, DELAY, NOTIFY, RESEARCH, TOOL_CALL, Run, at, brief, workflow

PRICING = PricingTable(
    prices={"big": ModelPrice(input_per_1k=0.01, output_per_1k=0.03)},
    default=ModelPrice(input_per_1k=0.001, output_per_1k=0.002),
    output_tokens=500,
)


def test_a_step_over_its_own_budget_fails_after_the_call() -> None:
    document = workflow(
        {"id": "a", "prompt": "a", "budget": 0.01},
        {"id": "b", "prompt": "b", "dependsOn": ["a"]},
    )
    run = Run(document)
    [call] = run.decide(0).actions
    assert isinstance(call, CallAgent) and call.budget_usd == 0.01
    run.succeed("a", "expensive", cost_usd=0.03)
    decision = run.decide(1)
    assert brief(decision.events) == [
        ("step_failed", "a", "budget_exceeded"),
        ("step_skipped", "b", "run_stopped"),
        ("completed", "error"),
    ]
    assert run.state.step("a").error == "step cost $0.0300 exceeded its budget $0.0100"
    assert run.state.cost_usd == pytest.approx(0.03)  # the money was spent all the same


def test_budget_exceeded_is_never_retried_but_can_be_skipped() -> None:
    retry = Run(
        workflow({"id": "a", "prompt": "a", "budget": 0.01, "onError": "retry", "retryMax": 3})
    )
    retry.decide(0)
    retry.succeed("a", "x", cost_usd=0.02)
    assert brief(retry.decide(1).events) == [
        ("step_failed", "a", "budget_exceeded"),
        ("completed", "error"),
    ]
    skip = Run(workflow({"id": "a", "prompt": "a", "budget": 0.01, "onError": "skip"}))
    skip.decide(0)
    skip.succeed("a", "x", cost_usd=0.02)
    assert brief(skip.decide(1).events) == [
        ("step_failed", "a", "budget_exceeded"),
        ("step_skipped", "a", "on_error_skip"),
        ("completed", "success"),
    ]


def test_a_dispatch_that_would_pass_the_run_budget_is_not_called() -> None:
    document = workflow(
        {"id": "a", "prompt": "a"},
        {"id": "b", "prompt": "x" * 4000, "model": "big", "dependsOn": ["a"]},
        budget=0.05,
    )
    run = Run(document, pricing=PRICING)
    run.decide(0)
    run.succeed("a", "ok", cost_usd=0.03)
    decision = run.decide(1)
    # estimate for b: 1000 tokens in * 0.01/1k + 500 out * 0.03/1k = 0.025; 0.03 + 0.025 > 0.05
    assert brief(decision.events) == [
        ("step_started", "b"),
        ("step_failed", "b", "budget_exceeded"),
        ("completed", "error"),
    ]
    assert not [a for a in decision.actions if isinstance(a, CallAgent)]
    assert run.state.step("b").error == (
        "run budget $0.0500 would be exceeded: spent $0.0300, this step is estimated at $0.0250"
    )


FORTY_CENTS = PricingTable(default=ModelPrice(output_per_1k=0.8), output_tokens=500)


def test_parallel_agent_calls_hold_their_estimates_so_they_fit_the_run_budget_together() -> None:
    document = workflow(
        {
            "id": "gather",
            "type": "parallel",
            "parallel": [{"id": f"s{n}", "prompt": f"s{n}"} for n in (1, 2, 3)],
        },
        budget=1.0,
    )
    run = Run(document, pricing=FORTY_CENTS)
    decision = run.decide(0)
    assert [a.step_id for a in decision.actions if isinstance(a, CallAgent)] == ["s1", "s2"]
    assert brief(decision.events)[-1] == ("step_failed", "s3", "budget_exceeded")
    assert run.state.step("s3").error == (
        "run budget $1.0000 would be exceeded: spent $0.0000, $0.8000 held by agent calls in "
        "flight, this step is estimated at $0.4000"
    )
    run.succeed("s1", "one", cost_usd=0.4)
    run.succeed("s2", "two", cost_usd=0.4)
    assert brief(run.decide(1).events) == [
        ("step_failed", "gather", "error"),
        ("completed", "error"),
    ]
    assert run.state.step("gather").error.startswith('sub-step "s3" budget_exceeded: run budget')
    assert run.state.cost_usd == pytest.approx(0.8)


def test_a_call_in_flight_holds_its_estimate_until_its_cost_is_recorded() -> None:
    document = workflow(
        {"id": "a", "prompt": "a"},
        {"id": "t", "type": "tool_call", "toolName": "echo", "toolInput": {"text": "t"}},
        {"id": "b", "prompt": "b", "dependsOn": ["t"]},
        budget=0.7,
    )
    held = Run(document, pricing=FORTY_CENTS)
    held.decide(0)
    held.succeed("t", "t")
    assert brief(held.decide(1).events) == [
        ("step_started", "b"),
        ("step_failed", "b", "budget_exceeded"),
    ]  # a, in flight, finishes before the run ends
    paid = Run(document, pricing=FORTY_CENTS)
    paid.decide(0)
    paid.succeed("a", "cheaper than estimated", cost_usd=0.1)
    paid.succeed("t", "t")
    decision = paid.decide(1)
    assert brief(decision.events) == [("step_started", "b")]
    assert [a.step_id for a in decision.actions if isinstance(a, CallAgent)] == ["b"]


def test_a_run_budget_given_at_start_overrides_the_definition() -> None:
    run = Run(workflow({"id": "a", "prompt": "a"}, budget=100), budget_usd=0)
    assert brief(run.decide(0).events)[1] == ("step_failed", "a", "budget_exceeded")


def test_passing_the_run_budget_after_the_fact_fails_the_step_that_did_it() -> None:
    document = workflow({"id": "a", "prompt": "a"}, {"id": "b", "prompt": "b"}, budget=1.0)
    run = Run(document)
    run.decide(0)
    run.succeed("a", "ok", cost_usd=0.6)
    run.succeed("b", "ok", cost_usd=0.6)
    assert brief(run.decide(1).events) == [
        ("step_failed", "b", "budget_exceeded"),
        ("completed", "error"),
    ]
    assert run.state.step("a").status == "success"
    assert run.state.step("b").error == "run cost $1.2000 exceeded the run budget $1.0000"


def test_estimates() -> None:
    assert [estimate_tokens(t) for t in ("", "abc", "abcd", "abcde")] == [0, 1, 1, 2]
    estimate = PRICING.estimate("big", "x" * 400)
    assert (estimate.tokens_in, estimate.tokens_out) == (100, 500)
    assert estimate.cost_usd == pytest.approx(0.001 + 0.015)
    assert PRICING.estimate(None, "").model == "default"
    assert PRICING.price_for("unknown") == PRICING.default


def test_dry_run_prices_every_agent_step_and_calls_nothing() -> None:
    run = Run(RESEARCH, mode="dry_run", pricing=PRICING)
    decision = run.decide(0)
    assert brief(decision.events) == [
        ("step_started", "research"),
        ("step_succeeded", "research"),
        ("step_started", "summarize"),
        ("step_succeeded", "summarize"),
        ("completed", "success"),
    ]
    assert decision.actions == (FinishRun(run_id="run-1", status="success"),)
    research = decision.events[1]
    prompt = "Search and organize the latest developments in AI agents, listing 5 key points"
    tokens_in = math.ceil(len(prompt) / 4)
    cost = (tokens_in * 0.001 + 500 * 0.002) / 1000
    assert research == StepSucceeded(
        run_id="run-1",
        at=at(0),
        step_id="research",
        attempt=1,
        output=(
            f"(dry-run) agent hisui, model default: ~{tokens_in} tokens in, ~500 out, ${cost:.4f}"
        ),
        cost_usd=cost,
        tokens_in=tokens_in,
        tokens_out=500,
        agent="hisui",
        model="default",
        estimated=True,
    )
    completed = decision.events[-1]
    assert isinstance(completed, RunCompleted) and completed.estimated
    assert completed.cost_usd == pytest.approx(
        run.state.step("research").cost_usd + run.state.step("summarize").cost_usd
    )
    assert completed.tokens_out == 1000


@pytest.mark.parametrize("budgets", [{"budget": 0.001}, {}], ids=["step", "run"])
def test_a_dry_run_step_over_a_budget_fails_before_its_dependents_start(
    budgets: dict[str, Any],
) -> None:
    # The estimate succeeded the step and, in the same decision, the next step started and
    # read its status as success; only then was the step failed (and skipped by onError).
    run_budget = {} if budgets else {"budget": 0.001}
    document = workflow(
        {"id": "a", "prompt": "a", "onError": "skip", **budgets},
        {"id": "n", "type": "notify", "notifyMsg": "{{steps.a.status}}", "dependsOn": ["a"]},
        **run_budget,
    )
    run = Run(document, mode="dry_run", pricing=PRICING)
    run.decide(0)
    assert run.state.step("a").status == "skipped"
    assert "budget" in run.state.step("a").error
    assert run.state.step("n").output == "(dry-run) would notify the default channel: skipped"


def test_dry_run_evaluates_conditions_normally() -> None:
    run = Run(CONDITION, mode="dry_run", variables={"type": "creative"})
    decision = run.decide(0)
    assert ("step_skipped", "tech-research", "branch_not_taken") in brief(decision.events)
    assert run.state.step("creative-draft").estimated
    assert run.state.status == "success"


NOTIFY_DRY = (
    "(dry-run) would notify telegram: Task complete: "
    "(dry-run) agent ruri, model default: ~2 tokens in, ~500 out, $0.0000"
)
NOT_RUN = ("workflow_run.delay_started", "workflow_run.notification_requested")


@pytest.mark.parametrize(
    ("document", "outputs"),
    [
        (
            TOOL_CALL,
            {
                "fetch-data": "(dry-run) would call tool http-get",
                "search": "(dry-run) would run skill web-search AI agents --depth 3",
            },
        ),
        (DELAY, {"wait": "(dry-run) would wait 30s"}),
        (NOTIFY, {"notify-done": NOTIFY_DRY}),
    ],
)
def test_dry_run_does_not_run_tools_skills_delays_or_notifications(
    document: dict[str, Any], outputs: dict[str, str]
) -> None:
    run = Run(document, mode="dry_run")
    decision = run.decide(0)
    assert decision.actions == (FinishRun(run_id="run-1", status="success"),)
    assert not [e for e in decision.events if e.type in NOT_RUN]
    for step_id, output in outputs.items():
        assert run.state.step(step_id).output == output


def test_dry_run_sends_no_completion_notification() -> None:
    run = Run(workflow({"id": "a", "prompt": "a"}, onSuccess="done"), mode="dry_run")
    decision = run.decide(0)
    assert brief(decision.events)[-1] == ("completed", "success")
    assert "notification_requested" not in [kind for kind, *_ in brief(decision.events)]
    assert decision.actions == (FinishRun(run_id="run-1", status="success"),)


def test_small_sums_in_a_dry_run_and_a_budget_stop_show_their_first_digits() -> None:
    # At four decimals a cheap model's estimate read "$0.0000", and a stop "step cost $0.0000
    # exceeded its budget $0.0000"; the CLI prints these texts as they are.
    cheap = PricingTable(prices={"cheap": ModelPrice(output_per_1k=0.00005)}, output_tokens=500)
    cheap_step = {"id": "a", "prompt": "a", "model": "cheap"}
    dry = Run(workflow(cheap_step), mode="dry_run", pricing=cheap)
    dry.decide(0)
    assert dry.state.step("a").output.endswith("~500 out, $0.000025"), dry.state.step("a").output
    live = Run(workflow({"id": "a", "prompt": "a", "budget": 0.00001}))
    live.decide(0)
    live.succeed("a", "x", cost_usd=0.0000314)
    live.decide(1)
    assert live.state.step("a").error == "step cost $0.000031 exceeded its budget $0.000010"
    over = Run(workflow(cheap_step, budget=0.00002), pricing=cheap)
    over.decide(0)
    assert over.state.step("a").error == (
        "run budget $0.000020 would be exceeded: spent $0.0000, this step is estimated at $0.000025"
    )
