"""The DAG step the agent-runner's task tests ask for: step "research" of alice's run r-1."""

from __future__ import annotations

from datetime import datetime

from baton_contracts.agent_api import RunTask


def research_step(deadline: datetime | None = None, *, timeout: float = 300.0) -> RunTask:
    """The step, given up by the workflow at `deadline`, with a step timeout of `timeout` s
    (300, `RunTask`'s own default, unless a test says otherwise)."""
    return RunTask(
        user_id="alice",
        agent="default",
        run_id="r-1",
        step_id="research",
        prompt="Research the market",
        timeout_seconds=timeout,
        idempotency_key="r-1:research:1",
        deadline=deadline,
    )
