"""The decision being built: events applied as they are emitted, so later rules see them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from baton_workflow.domain.dag.actions import Action
from baton_workflow.domain.dag.events import (
    FailureStatus,
    RunEvent,
    SkipReason,
    StepFailed,
    StepSkipped,
    StepSucceeded,
)
from baton_workflow.domain.dag.fold import apply
from baton_workflow.domain.dag.held import HeldEstimates
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.state import RunState
from baton_workflow.domain.dag.timeouts import DefaultTimeouts


@dataclass(slots=True)
class Batch:
    """Events and actions of one decision, and the state with those events applied."""

    state: RunState
    now: datetime
    pricing: PricingTable
    timeouts: DefaultTimeouts = field(default_factory=DefaultTimeouts)
    events: list[RunEvent] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    more: bool = False
    """Steps were ready that this decision left for the next one (`MAX_DECISION_EVENTS`)."""
    _held: HeldEstimates | None = None

    def emit(self, *events: RunEvent) -> None:
        """Record events and apply them at once."""
        for event in events:
            self.events.append(event)
            self.state = apply(self.state, event)
            if self._held is not None:  # only a budgeted decision's checks priced the calls
                step_id = getattr(event, "step_id", None)
                if step_id is not None and step_id in self.state.steps:
                    self._held.update(self.state, step_id)

    def held(self, step_id: str) -> float:
        """What the agent calls in flight but `step_id`'s hold against the run budget (priced
        once per decision, then kept as each event is applied: O(1) per check)."""
        if self._held is None:
            self._held = HeldEstimates.of(self.state, self.pricing)
        return self._held.but(step_id)

    def act(self, action: Action) -> None:
        """Ask the executor to do something after the events are stored."""
        self.actions.append(action)

    def succeed(
        self,
        step_id: str,
        output: str,
        *,
        cost_usd: float = 0.0,
        tokens_in: int = 0,
        tokens_out: int = 0,
        agent: str | None = None,
        model: str | None = None,
        handoff_from: str | None = None,
        estimated: bool = False,
    ) -> None:
        """The step's current attempt succeeded (decided here, not by a call)."""
        self.emit(
            StepSucceeded(
                run_id=self.state.run_id,
                at=self.now,
                step_id=step_id,
                attempt=self.state.step(step_id).attempt,
                output=output,
                cost_usd=cost_usd,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                agent=agent,
                model=model,
                handoff_from=handoff_from,
                estimated=estimated,
            )
        )

    def fail(self, step_id: str, error: str, status: FailureStatus = "error") -> None:
        """The step's current attempt failed (a deadline, a budget, a sub-step, the run's end)."""
        self.emit(
            StepFailed(
                run_id=self.state.run_id,
                at=self.now,
                step_id=step_id,
                attempt=self.state.step(step_id).attempt,
                status=status,
                error=error,
            )
        )

    def skip(self, step_id: str, reason: SkipReason, detail: str) -> None:
        """The step will not run (or its failure is ignored); nor will a parallel step's
        sub-steps that have not started. They are skipped with it, in this same pass: a step
        that waits on it may start in this pass too, and render their status."""
        self.emit(
            StepSkipped(
                run_id=self.state.run_id, at=self.now, step_id=step_id, reason=reason, detail=detail
            )
        )
        for sub in self.state.definition.step(step_id).parallel:
            if self.state.step(sub.id).status == "pending":
                self.skip(sub.id, reason, f'"{step_id}" was skipped')
