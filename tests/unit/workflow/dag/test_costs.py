"""Costs in USD are kept to ten decimal places wherever one is priced or summed, so a cost reads
as the decimal it is, and a budget is compared with what was spent, not with float noise."""

from __future__ import annotations

from baton_workflow.domain.dag.actions import CallAgent
from baton_workflow.domain.dag.events import RunCompleted, from_payload, to_payload
from baton_workflow.domain.dag.pricing import ModelPrice, PricingTable

from .conftest import Run, at, brief, workflow

PRICING = PricingTable(
    default=ModelPrice(input_per_1k=0.001, output_per_1k=0.002), output_tokens=500
)
TWELVE = workflow(*({"id": f"s{i}", "prompt": "x" * 20} for i in range(12)))


def test_a_dry_runs_estimates_and_their_total_read_as_decimals() -> None:
    # Each is (5 tokens * $0.001 + 500 * $0.002) / 1000, which floats made 0.0010049999999999998,
    # and twelve of them summed to 0.012059999999999998 (a reported run showed
    # "cost_usd":0.0050539999999999995 over HTTP).
    run = Run(TWELVE, mode="dry_run", pricing=PRICING)
    completed = run.decide(0).events[-1]
    assert isinstance(completed, RunCompleted)
    assert {step.cost_usd for step in run.state.steps.values()} == {0.001005}
    assert run.state.cost_usd == completed.cost_usd == 0.01206
    assert PRICING.estimate(None, "x" * 20).cost_usd == 0.001005


def test_recorded_costs_add_up_as_decimals_in_a_step_and_in_the_run() -> None:
    document = workflow(
        {"id": "a", "prompt": "a", "onError": "retry", "retryMax": 1, "retryDelay": "1s"},
        {"id": "b", "prompt": "b"},
    )
    run = Run(document)
    run.decide(0)
    run.events.append(run.call("a").failed(at(0), "flaky", cost_usd=0.1))
    run.succeed("b", "ok", cost_usd=0.2)
    run.decide(0)  # the retry is due in 1s
    run.decide(1)
    run.succeed("a", "ok", cost_usd=0.2)
    run.decide(2)
    assert run.state.step("a").cost_usd == 0.3  # not 0.30000000000000004
    assert run.state.cost_usd == 0.5


def test_a_run_that_spends_exactly_its_budget_has_not_passed_it() -> None:
    # $0.1 + $0.2 was 0.30000000000000004 as floats: over a $0.3 budget, failing step b.
    document = workflow({"id": "a", "prompt": "a"}, {"id": "b", "prompt": "b"}, budget=0.3)
    run = Run(document)
    run.decide(0)
    run.succeed("a", "ok", cost_usd=0.1)
    run.succeed("b", "ok", cost_usd=0.2)
    assert brief(run.decide(1).events) == [("completed", "success")]


def test_a_call_whose_estimate_fills_the_run_budget_exactly_is_made() -> None:
    # spent $0.1 + this call's estimate $0.2 reached the $0.3 budget only by float noise
    exact = PricingTable(default=ModelPrice(output_per_1k=0.4), output_tokens=500)
    document = workflow(
        {"id": "a", "prompt": "a"}, {"id": "b", "prompt": "b", "dependsOn": ["a"]}, budget=0.3
    )
    run = Run(document, pricing=exact)
    run.decide(0)
    run.succeed("a", "ok", cost_usd=0.1)
    decision = run.decide(1)
    assert [a.step_id for a in decision.actions if isinstance(a, CallAgent)] == ["b"]


def test_a_cost_stored_with_float_noise_reads_as_its_decimal() -> None:
    # runs recorded before costs were rounded fold to the same totals as new ones
    run = Run(workflow({"id": "a", "prompt": "a"}))
    run.decide(0)
    noisy = run.call("a").succeeded(at(0), "ok", cost_usd=0.0010049999999999998)
    loaded = from_payload(noisy.type, to_payload(noisy))
    assert getattr(loaded, "cost_usd", None) == 0.001005
