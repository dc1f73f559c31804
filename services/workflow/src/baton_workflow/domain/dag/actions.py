"""What the executor must do for a run: call an agent, a skill or a tool, notify, cancel, finish.

Actions carry everything the call needs, including the idempotency key of the attempt, and can
build the event that records their result (`succeeded(...)`, `failed(...)`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from baton_workflow.domain.dag.events import (
    FailureStatus,
    NotificationKind,
    RunStatus,
    StepFailed,
    StepInput,
    StepSucceeded,
)
from baton_workflow.domain.dag.state import RunState

CALLED_TYPES = frozenset({"dispatch", "handoff", "skill", "tool_call"})


@dataclass(frozen=True, slots=True, kw_only=True)
class StepCall:
    """An attempt of a step that the executor performs; its result becomes an event.

    `timeout` is the step's own limit; `deadline` is when this attempt is given up: the
    earlier of the deadline its start recorded (its own timeout, or the default for its type)
    and the run's (the scheduler then fails the step or ends the run, and asks for a
    `CancelStep`). The agent-runner is told it, so it stops then too.
    """

    run_id: str
    step_id: str
    attempt: int
    idempotency_key: str
    deadline: datetime | None = None
    timeout: timedelta | None = None

    def source_step(self) -> str | None:
        """The step whose output this call was handed (handoff steps only)."""
        return None

    def succeeded(
        self,
        at: datetime,
        output: str,
        *,
        cost_usd: float = 0.0,
        tokens_in: int = 0,
        tokens_out: int = 0,
        agent: str | None = None,
        model: str | None = None,
    ) -> StepSucceeded:
        """The event recording that this attempt finished well."""
        return StepSucceeded(
            run_id=self.run_id,
            at=at,
            step_id=self.step_id,
            attempt=self.attempt,
            output=output,
            cost_usd=cost_usd,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            agent=agent,
            model=model,
            handoff_from=self.source_step(),
        )

    def failed(
        self,
        at: datetime,
        error: str,
        *,
        status: FailureStatus = "error",
        cost_usd: float = 0.0,
        tokens_in: int = 0,
        tokens_out: int = 0,
    ) -> StepFailed:
        """The event recording that this attempt failed (`status` "timeout" for a timeout)."""
        return StepFailed(
            run_id=self.run_id,
            at=at,
            step_id=self.step_id,
            attempt=self.attempt,
            status=status,
            error=error,
            cost_usd=cost_usd,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CallAgent(StepCall):
    """Run an agent (dispatch or handoff); `shadow` runs record nothing in history."""

    agent: str | None
    prompt: str
    model: str | None = None
    provider: str | None = None
    permission_mode: str | None = None
    budget_usd: float | None = None
    handoff_from: str | None = None
    handoff_context: str | None = None
    shadow: bool = False

    def source_step(self) -> str | None:
        """The handoff source, recorded with the result."""
        return self.handoff_from


@dataclass(frozen=True, slots=True, kw_only=True)
class CallSkill(StepCall):
    """Run a registered skill with its rendered arguments."""

    skill: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CallTool(StepCall):
    """Call a registered tool with its rendered input."""

    tool_name: str
    tool_input: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Notify:
    """Publish a notification (`workflow_notify`); safe to repeat with the same key."""

    run_id: str
    idempotency_key: str
    kind: NotificationKind
    text: str
    notify_to: str | None = None
    step_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelStep:
    """Cancel an in-flight call (its timeout passed, or the run ended); ignore its late result."""

    run_id: str
    step_id: str
    attempt: int
    idempotency_key: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishRun:
    """The run is over: release what the executor holds for it."""

    run_id: str
    status: RunStatus


Action = CallAgent | CallSkill | CallTool | Notify | CancelStep | FinishRun


def call_for(state: RunState, step_id: str) -> CallAgent | CallSkill | CallTool:
    """The call of a step's current attempt, rebuilt from the input its StepStarted recorded."""
    step = state.step(step_id)
    kind = state.definition.step(step_id).type
    given = step.input or StepInput()
    key = state.idempotency_key(step_id, step.attempt)
    timeout = state.definition.step(step_id).timeout_delta
    deadline = _earlier(step.deadline, state.deadline)
    if kind == "skill":
        return CallSkill(
            run_id=state.run_id,
            step_id=step_id,
            attempt=step.attempt,
            idempotency_key=key,
            deadline=deadline,
            timeout=timeout,
            skill=given.skill or "",
            args=given.args,
        )
    if kind == "tool_call":
        return CallTool(
            run_id=state.run_id,
            step_id=step_id,
            attempt=step.attempt,
            idempotency_key=key,
            deadline=deadline,
            timeout=timeout,
            tool_name=given.tool_name or "",
            tool_input=dict(given.tool_input),
        )
    return CallAgent(
        run_id=state.run_id,
        step_id=step_id,
        attempt=step.attempt,
        idempotency_key=key,
        deadline=deadline,
        timeout=timeout,
        agent=given.agent,
        prompt=given.prompt or "",
        model=given.model,
        provider=given.provider,
        permission_mode=given.permission_mode,
        budget_usd=given.budget_usd,
        handoff_from=given.handoff_from,
        handoff_context=given.handoff_context,
        shadow=state.mode == "shadow",
    )


def _earlier(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return min(a, b)


def in_flight(state: RunState) -> list[CallAgent | CallSkill | CallTool]:
    """Calls started but without a result: after a crash, re-issue them with the same keys."""
    if state.finished:
        return []
    return [
        call_for(state, step_id)
        for step_id, step in state.steps.items()
        if step.status == "running" and state.definition.step(step_id).type in CALLED_TYPES
    ]
