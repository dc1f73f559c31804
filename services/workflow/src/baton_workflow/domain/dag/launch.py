"""Starting a ready step, by type: render its input, record the start, and say what to call.

Steps that need no executor (condition, notify's record, and every step in a dry run) finish
inside the same decision.
"""

from __future__ import annotations

from baton_contracts.money import usd
from baton_workflow.domain.dag.actions import Notify, call_for
from baton_workflow.domain.dag.batch import Batch
from baton_workflow.domain.dag.conditions import parse_condition
from baton_workflow.domain.dag.definition import DEFAULT_AGENT, Step
from baton_workflow.domain.dag.durations import later
from baton_workflow.domain.dag.events import (
    ConditionEvaluated,
    DelayStarted,
    NotificationRequested,
    StepInput,
    StepStarted,
)
from baton_workflow.domain.dag.filled_limits import Bounded, bounded_fields
from baton_workflow.domain.dag.held import call_estimate
from baton_workflow.domain.dag.pricing import Estimate, shown
from baton_workflow.domain.dag.templates import (
    MAX_NOTIFY_TO_CHARS,
    FilledTooLong,
    RenderContext,
    channel_hint_problem,
    fill,
    notification_text,
)


def launch(batch: Batch, step: Step) -> None:
    """Start the next attempt of `step` (it is ready: its dependencies have finished)."""
    match step.type:
        case "condition":
            _condition(batch, step)
        case "parallel":
            batch.emit(_started(batch, step, StepInput()))
        case "delay":
            _delay(batch, step)
        case "notify":
            _notify(batch, step)
        case "skill":
            _skill(batch, step)
        case "tool_call":
            _tool(batch, step)
        case _:
            _agent(batch, step)


def _started(batch: Batch, step: Step, given: StepInput) -> StepStarted:
    attempt = batch.state.step(step.id).attempt + 1
    timeout = batch.timeouts.limit(step)
    return StepStarted(
        run_id=batch.state.run_id,
        at=batch.now,
        step_id=step.id,
        attempt=attempt,
        idempotency_key=batch.state.idempotency_key(step.id, attempt),
        input=given,
        deadline=later(batch.now, timeout) if timeout is not None else None,
    )


class _Filler:
    """Fills a step's bounded fields (`bounded_fields`), never past their limits, and keeps
    why each that would pass its limit cannot go (`problems`); such a field fills as None."""

    def __init__(self, step: Step, context: RenderContext) -> None:
        self.fields = {field.name: field for field in bounded_fields(step)}
        self.context = context
        self.problems: list[str] = []

    def text(self, name: str) -> str | None:
        field = self.fields.get(name)
        return None if field is None else self.filled(field)

    def filled(self, field: Bounded) -> str | None:
        filled = fill(field.template, self.context, field.limit)
        if filled.cut:
            self.problems.append(
                f"{field.name} (its templates filled) {field.too_long(filled.length)}"
            )
            return None
        return filled.text


def _condition(batch: Batch, step: Step) -> None:
    try:
        result = parse_condition(step.if_ or "").evaluate(batch.state.render_context())
    except FilledTooLong as exc:  # a quoted value repeating a long one: nothing to compare
        batch.emit(_started(batch, step, StepInput()))
        batch.fail(step.id, f"if: {exc}")
        return
    branch = step.then if result else step.else_
    batch.emit(
        ConditionEvaluated(
            run_id=batch.state.run_id, at=batch.now, step_id=step.id, result=result, branch=branch
        )
    )
    chose = f'"{branch}"' if branch else "no branch"
    for target in step.branches:
        if target != branch and batch.state.step(target).status == "pending":
            detail = f'condition "{step.id}" was {str(result).lower()} and chose {chose}'
            batch.skip(target, "branch_not_taken", detail)


def _delay(batch: Batch, step: Step) -> None:
    if batch.state.mode == "dry_run":
        batch.emit(_started(batch, step, StepInput()))
        batch.succeed(step.id, f"(dry-run) would wait {step.delay}")
        return
    # A step timeout shorter than the delay ends the wait then (`delay_timed_out`).
    limit = batch.timeouts.limit(step)
    wait = step.delay_delta if limit is None else min(step.delay_delta, limit)
    due_at = later(batch.now, wait)
    batch.emit(
        DelayStarted(run_id=batch.state.run_id, at=batch.now, step_id=step.id, due_at=due_at)
    )


def _notify(batch: Batch, step: Step) -> None:
    context = batch.state.render_context()
    text = notification_text(step.notify_msg or "", context)
    hint = None if step.notify_to is None else fill(step.notify_to, context, MAX_NOTIFY_TO_CHARS)
    to = None if hint is None else hint.text
    hint_problem = None if hint is None else channel_hint_problem(hint.text, hint.length)
    if hint_problem is not None:  # rendered from a template: its text is not kept either
        batch.emit(_started(batch, step, StepInput(prompt=text)))
        batch.fail(step.id, f"notifyTo, once rendered, {hint_problem}")
        return
    started = _started(batch, step, StepInput(prompt=text, notify_to=to))
    batch.emit(started)
    if batch.state.mode == "dry_run":
        batch.succeed(step.id, f"(dry-run) would notify {to or 'the default channel'}: {text}")
        return
    key = started.idempotency_key
    run_id = batch.state.run_id
    batch.emit(
        NotificationRequested(
            run_id=run_id,
            at=batch.now,
            kind="step",
            step_id=step.id,
            text=text,
            notify_to=to,
            idempotency_key=key,
        )
    )
    batch.act(
        Notify(
            run_id=run_id,
            idempotency_key=key,
            kind="step",
            text=text,
            notify_to=to,
            step_id=step.id,
        )
    )
    batch.succeed(step.id, text)


def _skill(batch: Batch, step: Step) -> None:
    filler = _Filler(step, batch.state.render_context())
    filled = [filler.filled(field) for field in filler.fields.values()]
    if filler.problems:
        batch.emit(_started(batch, step, StepInput(skill=step.skill)))
        batch.fail(step.id, "; ".join(filler.problems))
        return
    args = tuple(arg or "" for arg in filled)
    batch.emit(_started(batch, step, StepInput(skill=step.skill, args=args)))
    if batch.state.mode == "dry_run":
        batch.succeed(step.id, f"(dry-run) would run skill {step.skill} {' '.join(args)}".rstrip())
        return
    batch.act(call_for(batch.state, step.id))


def _tool(batch: Batch, step: Step) -> None:
    filler = _Filler(step, batch.state.render_context())
    filled = [filler.filled(field) for field in filler.fields.values()]
    if filler.problems:
        batch.emit(_started(batch, step, StepInput(tool_name=step.tool_name)))
        batch.fail(step.id, "; ".join(filler.problems))
        return
    tool_input = dict(zip(step.tool_input, (value or "" for value in filled), strict=True))
    batch.emit(_started(batch, step, StepInput(tool_name=step.tool_name, tool_input=tool_input)))
    if batch.state.mode == "dry_run":
        batch.succeed(step.id, f"(dry-run) would call tool {step.tool_name}")
        return
    batch.act(call_for(batch.state, step.id))


def _agent(batch: Batch, step: Step) -> None:
    given, problems = _agent_input(batch, step)
    batch.emit(_started(batch, step, given))
    if problems:  # the same words as a field the agent-runner's task refuses (`dag_steps`)
        unnamed = any(problem.startswith("agent ") for problem in problems)
        agent = "its agent" if unnamed else f"agent {given.agent or DEFAULT_AGENT!r}"
        batch.fail(step.id, f"cannot ask {agent}: " + "; ".join(problems))
        return
    if step.handoff_from is not None:
        source = batch.state.step(step.handoff_from)
        if source.status != "success":
            error = f'handoff source "{step.handoff_from}" did not succeed ({source.status})'
            batch.fail(step.id, error)
            return
    estimate = _estimate(batch, given)
    refusal = _over_run_budget(batch, step, estimate.cost_usd)
    if refusal:
        batch.fail(step.id, refusal, "budget_exceeded")
        return
    if batch.state.mode == "dry_run":
        _estimated(batch, step, given, estimate)
    else:
        batch.act(call_for(batch.state, step.id))


def _estimated(batch: Batch, step: Step, given: StepInput, estimate: Estimate) -> None:
    """A dry run's agent step: succeed at once with what the call would use and cost."""
    summary = (
        f"(dry-run) agent {given.agent or 'default'}, model {estimate.model}: "
        f"~{estimate.tokens_in} tokens in, ~{estimate.tokens_out} out, {shown(estimate.cost_usd)}"
    )
    batch.succeed(
        step.id,
        summary,
        cost_usd=estimate.cost_usd,
        tokens_in=estimate.tokens_in,
        tokens_out=estimate.tokens_out,
        agent=given.agent,
        model=estimate.model,
        handoff_from=step.handoff_from,
        estimated=True,
    )


def _agent_input(batch: Batch, step: Step) -> tuple[StepInput, list[str]]:
    """The agent call's input, and why a field of it cannot go (left out of the input)."""
    filler = _Filler(step, batch.state.render_context())
    source = step.handoff_from
    given = StepInput(
        prompt=filler.text("prompt") if step.prompt is not None else "",  # None: too long
        agent=filler.text("agent") or None,
        model=filler.text("model") or None,
        provider=filler.text("provider") or None,
        permission_mode=filler.text("permissionMode") or None,
        budget_usd=step.budget,
        handoff_from=source,
        handoff_context=batch.state.step(source).output if source is not None else None,
    )
    return given, filler.problems


def _estimate(batch: Batch, given: StepInput) -> Estimate:
    """What an agent call with this input is expected to cost."""
    return call_estimate(batch.pricing, given)


def _over_run_budget(batch: Batch, step: Step, estimate: float) -> str | None:
    """Why starting an agent call would break the run budget (None when it would not).

    Calls in flight, those started earlier in this decision included, have not recorded their
    cost yet: each holds its estimate, or parallel calls together would pass the budget.
    """
    budget, spent = batch.state.budget_usd, batch.state.cost_usd
    if budget is None:
        return None
    held = batch.held(step.id)
    if spent < budget and usd(spent + held + estimate) <= budget:
        return None
    in_flight = f", {shown(held)} held by agent calls in flight" if held else ""
    return (
        f"run budget {shown(budget)} would be exceeded: "
        f"spent {shown(spent)}{in_flight}, this step is estimated at {shown(estimate)}"
    )
