"""What agent calls in flight hold against a run budget, kept up to date as a decision goes.

Each agent call in flight (started, its cost not recorded yet) holds its estimate, priced from
the input its `StepStarted` recorded, until its cost is recorded (`launch._over_run_budget`).
Summing every step's estimate at each agent start made starting N budgeted agent steps in one
decision O(N²): a 4,000-step fan-out priced 8 million estimates. `HeldEstimates` prices each
call once, when it starts (or, for calls already in flight, once per decision), and keeps
their sum as each step's state changes: a budget check is then O(1).

Estimates are kept in units of the cost's last decimal place (`USD_PLACES`) and summed as
integers, so taking a call out of the sum leaves exactly the sum of the others: a float sum
would drift with each change, and a check at the budget's very edge could go the other way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from baton_contracts.money import USD_PLACES, usd
from baton_workflow.domain.dag.definition import AGENT_TYPES
from baton_workflow.domain.dag.events import StepInput
from baton_workflow.domain.dag.pricing import Estimate, PricingTable
from baton_workflow.domain.dag.state import RunState

_UNIT = 10**USD_PLACES


def call_estimate(pricing: PricingTable, given: StepInput) -> Estimate:
    """What an agent call with this input is expected to cost."""
    text = (given.prompt or "") + (given.handoff_context or "")
    return pricing.estimate(given.model, text)


@dataclass(slots=True)
class HeldEstimates:
    """The estimate of each agent call in flight, by step id, and their sum (in units)."""

    pricing: PricingTable
    units: dict[str, int] = field(default_factory=dict)
    total: int = 0

    @classmethod
    def of(cls, state: RunState, pricing: PricingTable) -> HeldEstimates:
        """The calls `state` has in flight, each priced once."""
        held = cls(pricing)
        for step in state.steps.values():
            held.update(state, step.step_id)
        return held

    def update(self, state: RunState, step_id: str) -> None:
        """`step_id`'s state changed: it holds its estimate while its agent call is in flight.

        A step's input changes only as an attempt starts, from a status other than `running`,
        so a step still in flight holds the estimate it was priced at."""
        step = state.steps[step_id]
        holds = step.status == "running" and state.definition.step(step_id).type in AGENT_TYPES
        if holds == (step_id in self.units):
            return
        if holds:
            cost = call_estimate(self.pricing, step.input or StepInput()).cost_usd
            self.units[step_id] = round(cost * _UNIT)
            self.total += self.units[step_id]
        else:
            self.total -= self.units.pop(step_id)

    def but(self, step_id: str) -> float:
        """What every call in flight but `step_id`'s holds, in USD."""
        return usd((self.total - self.units.get(step_id, 0)) / _UNIT)
