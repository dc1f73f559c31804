"""The run-budget check before an agent call costs O(1), and decides what it decided before.

Each agent start summed the estimates of every agent call in flight, over every step of the
run: a budgeted fan-out of N agent steps priced N²/2 estimates in one decision (8 million for
4,000 steps), and a budgeted dry run walked every step at each start. The decision keeps the
calls in flight and their sum as it goes (`held.HeldEstimates`). The scale is counted in
Python calls, never timed; the decisions are checked against the rule written the old way:
every call in flight but the step's own, summed from the run's state at that step's start.
"""

from __future__ import annotations

from typing import Any

import pytest

from baton_contracts.money import usd
from baton_workflow.domain.dag.definition import AGENT_TYPES
from baton_workflow.domain.dag.events import RunEvent, StepFailed, StepInput, StepStarted
from baton_workflow.domain.dag.fold import apply
from baton_workflow.domain.dag.pricing import ModelPrice, PricingTable, shown
from baton_workflow.domain.dag.scheduler import decide
from baton_workflow.domain.dag.state import RunState

from .conftest import T0, Run, workflow
from .test_run_scale import calls

PRICING = PricingTable(
    prices={"big": ModelPrice(input_per_1k=0.013, output_per_1k=0.031)},
    default=ModelPrice(input_per_1k=0.0011, output_per_1k=0.0023),
    output_tokens=500,
)


def agent_fan_out(steps: int, budget: float) -> dict[str, Any]:
    return workflow(
        *(
            {"id": f"s{i}", "prompt": "x" * (1 + i % 97), "model": "big" if i % 3 else None}
            for i in range(steps)
        ),
        budget=budget,
    )


def first_decision_calls(document: dict[str, Any], mode: str) -> int:
    run = Run(document, pricing=PRICING, mode=mode)  # type: ignore[arg-type]
    state = run.state
    return calls(lambda: decide(state, T0, pricing=PRICING))


@pytest.mark.parametrize("mode", ["live", "dry_run"])
def test_a_budgeted_fan_out_of_agent_steps_starts_in_work_linear_in_its_steps(mode: str) -> None:
    # A budget every step fits: each check is made, and none refuses.
    small, large = (first_decision_calls(agent_fan_out(n, 1e6), mode) for n in (250, 1000))

    # Four times the steps, about four times the work; was about 16 times (quadratic).
    assert large < 4.5 * small, (small, large)


def old_rule(state: RunState, step_id: str, estimate: float) -> str | None:
    """The run-budget refusal as it was computed before: every step walked, every call in
    flight but this one priced again and summed."""
    budget, spent = state.budget_usd, state.cost_usd
    if budget is None:
        return None
    held = usd(
        sum(
            PRICING.estimate(
                (st.input or StepInput()).model,
                ((st.input or StepInput()).prompt or "")
                + ((st.input or StepInput()).handoff_context or ""),
            ).cost_usd
            for st in state.steps.values()
            if st.status == "running"
            and st.step_id != step_id
            and state.definition.step(st.step_id).type in AGENT_TYPES
        )
    )
    if spent < budget and usd(spent + held + estimate) <= budget:
        return None
    in_flight = f", {shown(held)} held by agent calls in flight" if held else ""
    return (
        f"run budget {shown(budget)} would be exceeded: "
        f"spent {shown(spent)}{in_flight}, this step is estimated at {shown(estimate)}"
    )


def budget_refusals(start: RunState, events: tuple[RunEvent, ...]) -> list[tuple[str, str]]:
    """Each agent start of a decision and the old rule's word on it: ("", step) when it fits."""
    state, said = start, []
    for i, event in enumerate(events):
        if isinstance(event, StepStarted) and state.definition.step(event.step_id).type in (
            AGENT_TYPES
        ):
            after = apply(state, event)
            given = event.input
            text = (given.prompt or "") + (given.handoff_context or "")
            estimate = PRICING.estimate(given.model, text).cost_usd
            refusal = old_rule(after, event.step_id, estimate)
            said.append((refusal or "", event.step_id))
            following = events[i + 1] if i + 1 < len(events) else None
            refused = (
                isinstance(following, StepFailed)
                and following.step_id == event.step_id
                and following.status == "budget_exceeded"
            )
            assert refused == (refusal is not None), event.step_id
            if refused:
                assert isinstance(following, StepFailed)
                assert following.error == refusal
        state = apply(state, event)
    return said


@pytest.mark.parametrize("mode", ["live", "dry_run"])
def test_budget_stops_and_held_estimates_are_decided_as_by_the_old_rule(mode: str) -> None:
    # Some calls in flight from a first decision, some paid, then a fan-out that passes the
    # budget part of the way: every start is checked against the old rule.
    document = workflow(
        *({"id": f"a{i}", "prompt": "y" * (1 + 7 * i), "model": "big"} for i in range(12)),
        *(
            {"id": f"b{i}", "prompt": "z" * (1 + i % 41), "dependsOn": ["a0", "a1"]}
            for i in range(300)
        ),
        budget=0.3,
    )
    run = Run(document, pricing=PRICING, mode=mode)  # type: ignore[arg-type]
    first = run.state
    said = budget_refusals(first, run.decide(0).events)
    if mode == "live":
        run.succeed("a0", "paid", cost_usd=0.0123)
        run.succeed("a1", "paid less than estimated", cost_usd=0.0007)
        second = run.state
        said += budget_refusals(second, run.decide(1).events)

    fitted = [step for refusal, step in said if not refusal]
    refused = [step for refusal, step in said if refusal]
    assert fitted and refused  # the budget was passed part of the way: both sides are checked
    # A dry run's steps end as they start: nothing is ever in flight to hold an estimate.
    held = any("held by agent calls in flight" in refusal for refusal, _ in said)
    assert held == (mode == "live")
