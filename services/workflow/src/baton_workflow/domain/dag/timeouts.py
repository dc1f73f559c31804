"""How long an attempt of a step may take: its own `timeout`, or the default for its type."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from baton_workflow.domain.dag.definition import AGENT_TYPES, Step
from baton_workflow.domain.dag.durations import format_duration
from baton_workflow.domain.dag.state import StepState

TOOL_TYPES = frozenset({"tool_call", "skill"})


@dataclass(frozen=True, slots=True)
class DefaultTimeouts:
    """The timeout of a step that sets none (the service's settings); None: no limit."""

    agent: timedelta | None = None
    tool: timedelta | None = None  # tool_call and skill steps

    def limit(self, step: Step) -> timedelta | None:
        """How long one attempt may take: the step's own timeout, else its type's default."""
        if step.timeout is not None:
            return step.timeout_delta
        if step.type in AGENT_TYPES:
            return self.agent
        return self.tool if step.type in TOOL_TYPES else None


def timed_out(step: Step, attempt: StepState) -> str:
    """The error of an attempt that passed the deadline its start recorded."""
    if step.timeout is not None:
        return f"step timed out after {step.timeout}"
    if attempt.deadline is None or attempt.attempt_started_at is None:
        return "step timed out"
    # The limit in force when the attempt started, even if the settings changed since.
    limit = format_duration(attempt.deadline - attempt.attempt_started_at)
    return f"step timed out after {limit} (the default timeout: the step sets none)"
