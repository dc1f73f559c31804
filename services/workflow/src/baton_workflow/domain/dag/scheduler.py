"""The pure scheduler of a DAG run: `decide(state, now)` says what happens next.

The executor loop is: load the run's events, `fold` them, `decide(state, now)`, append the
decision's events, perform its actions, append each action's result event (built with
`action.succeeded(...)` / `action.failed(...)`), and decide again when a result arrives or at
`decision.wake_at`. After a crash, `in_flight(state)` lists the calls to re-issue with the same
idempotency keys; `decide` never starts an attempt twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from baton_workflow.domain.dag.actions import Action
from baton_workflow.domain.dag.batch import Batch
from baton_workflow.domain.dag.completion import cancel_call, complete_if_done, end_run, stop_step
from baton_workflow.domain.dag.definition import Step, WorkflowDefinition
from baton_workflow.domain.dag.durations import format_duration, later
from baton_workflow.domain.dag.events import (
    RetryScheduled,
    RunEvent,
    RunMode,
    RunStarted,
    SkipReason,
)
from baton_workflow.domain.dag.filled_limits import run_problems
from baton_workflow.domain.dag.launch import launch
from baton_workflow.domain.dag.policy import (
    final_failure,
    first_final_failure,
    ignored,
    retryable,
    stopping,
)
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.problems import InvalidVariables
from baton_workflow.domain.dag.state import RunState, StepState
from baton_workflow.domain.dag.timeouts import DefaultTimeouts, timed_out
from baton_workflow.domain.dag.validation import resolve_variables

PARALLEL_JOIN = "\n---\n"
_DONE = ("success", "skipped")
MAX_DECISION_EVENTS = 1_000
"""Past this many events a decision starts no more steps (the one it was starting may add a
few): the rest start in the decisions right after it, each written whole in its own
transaction (`wake_at` is then `now`). One decision of a 17,600-step fan-out was one write of
17,600 events: SQLite's one writer was held 1.2 s, every other user's write waiting, and on
PostgreSQL the statement passed the 2 s statement timeout, was cancelled, and was tried again
and again: the run never started a step."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What to record and do now, the state after it, and when to decide again at the latest."""

    state: RunState
    events: tuple[RunEvent, ...]
    actions: tuple[Action, ...]
    wake_at: datetime | None


def start_run(
    definition: WorkflowDefinition,
    *,
    run_id: str,
    now: datetime,
    variables: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    mode: RunMode = "live",
    version: int = 0,
    version_id: str = "",
    user_id: str = "",
    project_id: str = "",
    budget_usd: float | None = None,
    allow_extra_variables: bool = False,
) -> RunStarted:
    """The first event of a run (InvalidVariables if a variable is missing or unknown, or
    fills a step's field past its limit: `filled_limits.run_problems`).

    `env` holds the allow-listed values the caller read for `{{env.KEY}}` (see `env_keys`);
    they are pinned in the log so a restarted run renders the same text. `budget_usd`
    overrides the definition's run budget.
    """
    values = resolve_variables(definition, variables or {}, allow_extra=allow_extra_variables)
    too_long = run_problems(definition, values, variables or {}, env or {})
    if too_long:  # every run of the step would fail: the run is not started, nothing kept
        raise InvalidVariables(too_long)
    timeout = definition.timeout_delta
    return RunStarted(
        run_id=run_id,
        at=now,
        workflow=definition.name,
        version=version,
        version_id=version_id,
        definition=definition,
        variables=values,
        env=dict(env or {}),
        mode=mode,
        user_id=user_id,
        project_id=project_id,
        deadline=later(now, timeout) if timeout is not None else None,
        budget_usd=budget_usd if budget_usd is not None else definition.budget,
    )


def decide(
    state: RunState,
    now: datetime,
    *,
    pricing: PricingTable | None = None,
    timeouts: DefaultTimeouts | None = None,
) -> Decision:
    """Everything due at `now`: starts, skips, retries, timeouts, joins and completion.

    Deciding again with no new event and the same `now` decides nothing, unless the decision
    was full (`MAX_DECISION_EVENTS`): then `wake_at` is `now`, and the next one goes on.
    `pricing` prices dry runs and the run-budget check before an agent call (no pricing:
    estimates are 0).
    `timeouts` are the limits of steps that set no `timeout` (none given: no limit); an
    attempt's deadline is recorded as it starts, so a restart keeps it.
    """
    batch = Batch(state, now, pricing or PricingTable(), timeouts or DefaultTimeouts())
    _decide(batch)
    due = now if batch.more else wake_at(batch.state)
    return Decision(batch.state, tuple(batch.events), tuple(batch.actions), due)


def wake_at(state: RunState) -> datetime | None:
    """The next moment something is due: a retry, a delay, a step or run deadline."""
    if state.finished:
        return None
    moments = [state.deadline] if state.deadline is not None else []
    for step in state.steps.values():
        if step.status in ("retry_wait", "waiting") and step.due_at is not None:
            moments.append(step.due_at)
        elif step.status == "running" and step.deadline is not None:
            moments.append(step.deadline)
    return min(moments, default=None)


def _decide(batch: Batch) -> None:
    state = batch.state
    if state.finished:
        return
    if state.cancel_requested is not None:
        end_run(batch, "cancelled", f"run cancelled: {state.cancel_requested}", "run_cancelled")
        return
    if state.deadline is not None and batch.now >= state.deadline:
        timeout = state.definition.timeout or "its deadline"
        end_run(batch, "timeout", f"workflow timed out after {timeout}", "run_timed_out")
        return
    _step_deadlines(batch)
    while True:
        count = len(batch.events)
        _budget_overruns(batch)
        _joins(batch)
        _failures(batch)
        if stopping(batch.state):
            _skip_remaining(batch)
        else:
            _timers(batch)
            _start_ready(batch)
        if len(batch.events) == count:
            break
    complete_if_done(batch)


def _each(batch: Batch, wanted: Callable[[Step, StepState], bool]) -> Iterator[Step]:
    """Steps (declaration order) matching `wanted` at the moment each is reached."""
    for step in batch.state.definition.all_steps():
        if wanted(step, batch.state.step(step.id)):
            yield step


def _step_deadlines(batch: Batch) -> None:
    def overdue(_: Step, st: StepState) -> bool:
        return st.status == "running" and st.deadline is not None and batch.now >= st.deadline

    for step in _each(batch, overdue):
        error = timed_out(step, batch.state.step(step.id))
        for sub in step.parallel:
            stop_step(batch, sub, f'parallel step "{step.id}" timed out', "parallel_timed_out")
        cancel_call(batch, step, error)
        batch.fail(step.id, error, "timeout")


def _budget_overruns(batch: Batch) -> None:
    for step in _each(batch, lambda _, st: st.status == "success" and st.over_budget is not None):
        batch.fail(step.id, batch.state.step(step.id).over_budget or "", "budget_exceeded")


def _joins(batch: Batch) -> None:
    """A parallel step ends once each sub-step succeeded, was skipped or failed for good.

    It fails if a sub-step failed for good. It is skipped if a stop skipped a sub-step that was
    still waiting (for a retry or a delay): that sub-step was abandoned, not finished, so the
    join never completed and its output would be partial. A sub-step skipped by its own
    `onError: skip` finished as its author asked, and the step succeeds without its output.
    A sub-step that fails while the run is stopping is not retried: that failure is final.
    """
    stop = stopping(batch.state)

    def settled(sub: Step) -> bool:
        st = batch.state.step(sub.id)
        return st.status in _DONE or final_failure(sub, st, stopping=stop)

    def joinable(step: Step, st: StepState) -> bool:
        return st.status == "running" and bool(step.parallel) and all(map(settled, step.parallel))

    for step in _each(batch, joinable):
        children = [(sub, batch.state.step(sub.id)) for sub in step.parallel]
        failed = [c for sub, c in children if final_failure(sub, c, stopping=stop)]
        stopped = [c.step_id for _, c in children if c.skip_reason == "run_stopped"]
        if failed:
            detail = "; ".join(f'sub-step "{c.step_id}" {c.status}: {c.error}' for c in failed)
            batch.fail(step.id, detail)
        elif stopped:
            names = ", ".join(f'"{s}"' for s in stopped)
            batch.skip(step.id, "run_stopped", f"the run stopped before sub-step {names} finished")
        else:
            outputs = [c.output for _, c in children if c.status == "success" and c.output]
            batch.succeed(step.id, PARALLEL_JOIN.join(outputs))


def _failures(batch: Batch) -> None:
    for step in _each(batch, lambda s, st: retryable(s, st) or ignored(s, st)):
        st = batch.state.step(step.id)
        if retryable(step, st) and not stopping(batch.state):
            batch.emit(
                RetryScheduled(
                    run_id=batch.state.run_id,
                    at=batch.now,
                    step_id=step.id,
                    attempt=st.attempt + 1,
                    due_at=later(batch.now, step.retry_wait(st.attempt)),
                )
            )
        elif ignored(step, st):
            batch.skip(step.id, "on_error_skip", st.error)


def _skip_remaining(batch: Batch) -> None:
    failed = first_final_failure(batch.state)
    detail = f'step "{failed.step_id}" failed' if failed is not None else ""
    for step in _each(batch, lambda _, st: st.status in ("pending", "retry_wait", "waiting")):
        batch.skip(step.id, "run_stopped", detail)


def _timers(batch: Batch) -> None:
    def due(_: Step, st: StepState) -> bool:
        waiting = st.status in ("retry_wait", "waiting")
        return waiting and st.due_at is not None and batch.now >= st.due_at

    for step in _each(batch, due):
        state = batch.state.step(step.id)
        if state.status == "retry_wait":
            launch(batch, step)
        elif _delay_timed_out(batch, step):
            batch.fail(step.id, timed_out(step, state), "timeout")
        else:
            batch.succeed(step.id, _waited(step, state, batch.now))


LATE_ENOUGH_TO_SAY = timedelta(seconds=1)
"""How late a delay must fire for its output to say so (a timer fires a few ms late anyway)."""


def _waited(step: Step, state: StepState, now: datetime) -> str:
    """A delay's output: "waited 30s", and how late it fired when that is a second or more (a
    timer due while the workflow service was down fires when it is back)."""
    late = now - state.due_at if state.due_at is not None else timedelta(0)
    if late < LATE_ENOUGH_TO_SAY:
        return f"waited {step.delay}"
    whole = timedelta(seconds=late // timedelta(seconds=1))
    return f"waited {step.delay}, fired {format_duration(whole)} late"


def _delay_timed_out(batch: Batch, step: Step) -> bool:
    """A delay whose step timeout is shorter than the delay: its wait ended at the timeout."""
    limit = batch.timeouts.limit(step)
    return limit is not None and limit < step.delay_delta


def _full(batch: Batch) -> bool:
    """The decision has as many events as one may have: what is left is for the next one."""
    if len(batch.events) >= MAX_DECISION_EVENTS:
        batch.more = True
    return batch.more


def _start_ready(batch: Batch) -> None:
    definition = batch.state.definition
    for step in definition.steps:
        if batch.state.step(step.id).status != "pending":
            continue
        if _full(batch):
            return
        skip = _branch_skip(batch.state, step.id)
        if skip is not None:
            batch.skip(step.id, *skip)
        elif all(_settled(batch.state.step(dep)) for dep in definition.dependencies[step.id]):
            launch(batch, step)
    for step in definition.steps:
        parent = batch.state.step(step.id)
        for sub in step.parallel:
            if batch.state.step(sub.id).status != "pending":
                continue
            if _full(batch):
                return
            if parent.status == "running":
                launch(batch, sub)
            elif parent.status == "skipped":
                batch.skip(sub.id, parent.skip_reason or "run_stopped", f'"{step.id}" was skipped')


def _settled(step: StepState) -> bool:
    """Done for the steps that wait on it. A success over a budget is not: it fails at the next
    pass (a dry run's estimate succeeds the step in this very pass, before that check)."""
    return step.status in _DONE and step.over_budget is None


def _branch_skip(state: RunState, step_id: str) -> tuple[SkipReason, str] | None:
    """Why a branch target will not run: its condition was skipped or chose another branch."""
    for source in state.definition.branch_sources.get(step_id, ()):
        condition = state.step(source)
        if condition.status == "skipped":
            return "condition_skipped", f'condition "{source}" was skipped'
        if condition.status == "success" and condition.branch != step_id:
            return "branch_not_taken", f'condition "{source}" chose "{condition.branch or "none"}"'
    return None
