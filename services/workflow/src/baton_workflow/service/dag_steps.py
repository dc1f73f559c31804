"""DAG step runners: what performs a step's call (an agent over NATS, a tool or a skill in
process) and turns its outcome into the event that records it.

Kept apart from the executor so that how a call is made, and how a request the agent-runner
would refuse is explained in the author's terms, can be read without the run loop around it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import CancelTask, RunTask
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.actions import CallAgent, CallSkill, CallTool, CancelStep
from baton_workflow.domain.dag.definition import DEFAULT_AGENT
from baton_workflow.domain.dag.timeouts import DefaultTimeouts
from baton_workflow.service.dag_ports import TaskAgents
from baton_workflow.service.ports import Clock
from baton_workflow.service.step_ports import Skills, StepActionFailed, StepTimedOut, Tools

# The logger the run code has always written to (before it was split out of `dag_runs`):
# log filters that select it by name keep seeing these lines.
log = logging.getLogger("baton_workflow.service.dag_runs")

Call = CallAgent | CallSkill | CallTool
AGENT_STEP_TYPES = frozenset({"dispatch", "handoff"})


@dataclass
class StepRunners:
    """What performs a step's call: agents over NATS, tools and skills in process."""

    agents: TaskAgents
    tools: Tools
    skills: Skills
    clock: Clock
    agent_timeout: float = 300.0
    tool_timeout: float = 30.0
    agent_runner_wait: float = 300.0
    """How long a down agent-runner is waited for on a step that sets no timeout of its own
    (one that sets one waits for it until that timeout)."""

    @property
    def timeouts(self) -> DefaultTimeouts:
        """The limits of steps that set no timeout, for the scheduler to record as deadlines."""
        return DefaultTimeouts(
            agent=timedelta(seconds=self.agent_timeout), tool=timedelta(seconds=self.tool_timeout)
        )

    async def perform(self, call: Call, user_id: str) -> re.StepSucceeded | re.StepFailed:
        """The event recording the call's result; never raises (but for cancellation)."""
        try:
            if isinstance(call, CallAgent):
                return await self._agent(call, user_id)
            timeout = self._time_left(call, self.tool_timeout)
            if isinstance(call, CallTool):
                output = (
                    await self.tools.call(
                        call.tool_name,
                        call.tool_input,
                        timeout=timeout,
                        idempotency_key=call.idempotency_key,
                    )
                ).output
            else:
                output = (await self.skills.run(call.skill, call.args, timeout=timeout)).output
            return call.succeeded(self.clock.now(), output)
        except StepTimedOut as exc:
            return call.failed(self.clock.now(), exc.message, status="timeout")
        except StepActionFailed as exc:
            return call.failed(self.clock.now(), exc.message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must fail the step, not stall the run
            log.exception("step %s of run %s failed unexpectedly", call.step_id, call.run_id)
            return call.failed(self.clock.now(), f"internal error: {type(exc).__name__}: {exc}")

    async def _agent(self, call: CallAgent, user_id: str) -> re.StepSucceeded | re.StepFailed:
        agent = call.agent or DEFAULT_AGENT
        timeout = self._time_left(call, self.agent_timeout)
        deadline = call.deadline or self.clock.now() + timedelta(seconds=timeout)
        request = _task_request(call, user_id, agent, timeout, deadline)
        # A restart of the agent-runner on a loaded host can take minutes: the step that says
        # how long it may take is given all of it; another, the setting's time (within its own).
        waited = timeout if call.timeout is not None else min(timeout, self.agent_runner_wait)
        try:
            result = await self.agents.run_task(request, timeout=timeout + 1.0, retry_for=waited)
        except RemoteError as exc:
            message = exc.body.message
            if exc.code is ErrorCode.FORBIDDEN and message.startswith("budget exceeded"):
                return call.failed(self.clock.now(), message, status="budget_exceeded")
            return call.failed(self.clock.now(), f"agent {agent!r}: {message}")
        return call.succeeded(
            self.clock.now(),
            result.output,
            cost_usd=result.cost_usd,
            tokens_in=result.usage.input_tokens,
            tokens_out=result.usage.output_tokens,
            agent=result.agent or agent,
            model=result.model or None,
        )

    async def give_up(self, action: CancelStep, user_id: str) -> None:
        """Tell the agent-runner to stop a call this process no longer waits for (its result
        would be ignored); a notice that cannot be sent is logged, the deadline still ends it."""
        notice = CancelTask(
            user_id=user_id, idempotency_key=action.idempotency_key, reason=action.reason[:500]
        )
        try:
            await self.agents.cancel_task(notice)
        except Exception as exc:
            log.warning(
                "could not tell the agent-runner to stop %s: %s", action.idempotency_key, exc
            )

    def _time_left(self, call: Call, default: float) -> float:
        if call.deadline is None:
            return default
        return max(0.05, (call.deadline - self.clock.now()).total_seconds())


# What a RunTask field is called in the step, for errors in the author's terms.
_STEP_FIELDS = {
    "agent": "agent",
    "prompt": "prompt (its templates filled)",
    "context": "the handoff context (the whole output of handoffFrom)",
    "model": "model",
    "provider": "provider",
    "permission_mode": "permissionMode",
}


def _task_request(
    call: CallAgent, user_id: str, agent: str, timeout: float, deadline: datetime
) -> RunTask:
    """The agent-runner request of a call; `StepActionFailed` naming the field that cannot go.

    Templates are filled at run time, so a prompt may only now be too long (a page a tool
    fetched, say), or an agent name rendered from a variable may not be a name.
    """
    fields: dict[str, Any] = {
        "agent": agent,
        "prompt": call.prompt or " ",
        "context": call.handoff_context or "",
        "model": call.model,
        "provider": call.provider,
        "permission_mode": call.permission_mode,
    }
    try:
        return RunTask(
            user_id=user_id,
            run_id=call.run_id,
            step_id=call.step_id,
            context_from=call.handoff_from,
            budget_usd=call.budget_usd,
            timeout_seconds=timeout,
            idempotency_key=call.idempotency_key,
            deadline=deadline,
            shadow=call.shadow,
            **fields,
        )
    except ValidationError as exc:
        problems = [_field_problem(error, fields) for error in exc.errors()]
        raise StepActionFailed(f"cannot ask agent {agent!r}: " + "; ".join(problems)) from None


def _field_problem(error: Any, fields: Mapping[str, Any]) -> str:
    """One pydantic error of a RunTask as the step field and what is wrong with it."""
    name = str(error["loc"][0]) if error["loc"] else ""
    label, value = _STEP_FIELDS.get(name, name), fields.get(name)
    if error["type"] == "string_too_long" and isinstance(value, str):
        limit = error.get("ctx", {}).get("max_length")
        return f"{label} has {len(value):,} characters; an agent takes at most {limit:,}"
    shown = repr(value)[:80] if isinstance(value, str) else value
    return f"{label}: {error['msg']} (got {shown})"
