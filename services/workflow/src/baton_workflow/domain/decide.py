"""Decisions: given the state, a command and what the criteria checks found, the new events."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from baton_workflow.domain.commands import (
    Command,
    RecordExchange,
    SendSignal,
    Signal,
    StartInstance,
)
from baton_workflow.domain.criteria import CriteriaReport
from baton_workflow.domain.definitions import StepDefinition, WorkflowDefinition
from baton_workflow.domain.errors import InstanceNotActive, UnknownStep, WorkflowError
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceCompleted,
    InstanceStarted,
    SignalReceived,
    StepBlocked,
    StepChanged,
    WidgetCompleted,
)
from baton_workflow.domain.lifecycle import allowed
from baton_workflow.domain.progress import share_done
from baton_workflow.domain.state import InstanceState
from baton_workflow.domain.widgets import widget_of


def decide(
    state: InstanceState | None,
    command: Command,
    definition: WorkflowDefinition,
    now: datetime,
    report: CriteriaReport | None = None,
) -> list[DomainEvent]:
    """New events for `command`; [] when the command was handled before (same command_id)."""
    if isinstance(command, StartInstance):
        if state is not None:
            raise WorkflowError(f"instance {command.instance_id!r} already exists")
        return [
            InstanceStarted(
                at=now,
                instance_id=command.instance_id,
                workflow_id=command.workflow_id,
                user_id=command.user_id,
                first_step=definition.first_step.id,
            )
        ]
    if state is None:
        raise WorkflowError("instance has not been started")
    if command.command_id in state.outcomes:
        return []
    if state.status == "completed" and _asked_while_active(command):
        # Another replica completed the instance while this turn's agent answered: the
        # conversation happened, so the log keeps it, on the step it was answered on, as for
        # a step left meanwhile. Its signal applies to nothing.
        assert isinstance(command, RecordExchange) and command.step is not None
        return [_late_exchange(state, command, command.step, now)]
    _require_active(state)
    return _turn(state, command, definition, now, report)


def _asked_while_active(command: Command) -> bool:
    """A chat turn (it names the step its agent answered on): the gateway refuses a message
    to a completed instance before asking any agent, so one arriving now was asked before."""
    return isinstance(command, RecordExchange) and command.step is not None


def _require_active(state: InstanceState) -> None:
    if not allowed(state.status, "touch"):
        raise InstanceNotActive(f"instance {state.instance_id!r} is {state.status}")


@dataclass(frozen=True)
class _Turn:
    """Everything one exchange or signal is decided from."""

    state: InstanceState
    definition: WorkflowDefinition
    step: StepDefinition
    signal: Signal
    count: int
    report: CriteriaReport | None
    command_id: str
    now: datetime


def _turn(
    state: InstanceState,
    command: RecordExchange | SendSignal,
    definition: WorkflowDefinition,
    now: datetime,
    report: CriteriaReport | None,
) -> list[DomainEvent]:
    if _answered_elsewhere(state, command):
        assert isinstance(command, RecordExchange) and command.step is not None
        return [_late_exchange(state, command, command.step, now)]
    step = definition.step(state.current_step)
    count, events = state.messages_in_step, list[DomainEvent]()
    if isinstance(command, RecordExchange):
        count += 1
        events.append(
            ExchangeRecorded(
                at=now,
                command_id=command.command_id,
                step=step.id,
                messages_in_step=count,
                user_text=command.user_text,
                agent_text=command.agent_text,
                agent=command.agent,
            )
        )
    signal = command.signal or Signal()  # no signal means "stay" (seed 000, risks)
    if command.signal is not None:
        events.append(_received(command, step, signal, now))
    turn = _Turn(state, definition, step, signal, count, report, command.command_id, now)
    return events + _advance(turn)


def _answered_elsewhere(state: InstanceState, command: Command) -> bool:
    """An exchange answered on a step the instance has left since."""
    return (
        isinstance(command, RecordExchange)
        and command.step is not None
        and command.step != state.current_step
    )


def _late_exchange(
    state: InstanceState, command: RecordExchange, step: str, now: datetime
) -> ExchangeRecorded:
    """An exchange whose agent answered on `step` while another replica moved the instance on:
    the conversation happened, so the log keeps it, on the step it belongs to. It counts toward
    no other step's `min_messages` or `max_messages` (one message answered by the inbox
    collector must not force the final step), and its signal, about that step, applies to
    none."""
    recorded = state.step_data.get(step, {}).get("messages", 0)
    return ExchangeRecorded(
        at=now,
        command_id=command.command_id,
        step=step,
        messages_in_step=(recorded if isinstance(recorded, int) else 0) + 1,
        user_text=command.user_text,
        agent_text=command.agent_text,
        agent=command.agent,
    )


def _received(
    command: RecordExchange | SendSignal, step: StepDefinition, signal: Signal, now: datetime
) -> SignalReceived:
    return SignalReceived(
        at=now,
        command_id=command.command_id,
        step=step.id,
        action=signal.action,
        source="agent" if isinstance(command, RecordExchange) else "manual",
        data=signal.data,
        shared=signal.shared,
        target_step=signal.target_step,
    )


def _advance(t: _Turn) -> list[DomainEvent]:
    moved = _move(t)
    if moved and isinstance(moved[-1], StepChanged | InstanceCompleted):
        return [*_closing_widget(t), *moved]
    return moved


def _closing_widget(t: _Turn) -> list[DomainEvent]:
    """The completed widget the step closes holding: the signal's, else the last one sent on
    the step (a refused signal's data stays in the step's)."""
    widget = widget_of({**t.state.step_data.get(t.step.id, {}), **t.signal.data})
    if widget is None or not widget.completed or widget.widget_type is None:
        return []
    return [
        WidgetCompleted(
            at=t.now,
            command_id=t.command_id,
            step=t.step.id,
            widget_type=widget.widget_type,
            items=list(widget.items),
        )
    ]


def _move(t: _Turn) -> list[DomainEvent]:
    """Whether the step closes, is refused, or stays: at most one event.

    Only a completion goes where its signal names: a `stay` or `need_input` naming a later
    step moves nothing, so it is not refused for what it would skip (the named step is still
    checked to be one ahead); at `max_messages` it moves on to the step's own next step.
    """
    named = _target(t.definition, t.step, t.signal)
    target = named if t.signal.action == "complete_step" else t.step.next_step
    missing = _missing(t.step, t.count, t.report)
    skipped = _skipped_required(t.definition, t.step, target)
    if skipped and t.count < t.step.max_messages:
        reason = f"required step(s) cannot be skipped: {', '.join(skipped)}"
        # An optional step closes on the signal alone: its own unmet criteria are not what
        # holds the skip back, and naming them sent a client after messages it needs not send.
        own = missing if t.step.is_required else []
        return [_blocked(t, reason, [*own, *_not_done(t.definition, skipped)])]
    if skipped:  # max_messages moves on whatever the signal says, and only to the next step
        return [_leave(t, t.step.next_step, forced_missing=missing)]
    if t.signal.action == "complete_step":
        if not missing or not t.step.is_required:
            return [_leave(t, target)]
        if t.count < t.step.max_messages:
            return [_blocked(t, _blocked_reason(t.step, t.count), missing)]
    if t.count >= t.step.max_messages:
        return [_leave(t, target, forced_missing=missing)]
    return []


def _blocked(t: _Turn, reason: str, missing: list[str]) -> StepBlocked:
    return StepBlocked(
        at=t.now, command_id=t.command_id, step=t.step.id, reason=reason, missing_criteria=missing
    )


def _target(definition: WorkflowDefinition, step: StepDefinition, signal: Signal) -> str | None:
    """Where closing the step leads: its next step, or a later one a signal names."""
    if signal.target_step is None or signal.target_step == step.id:
        return step.next_step
    names = [s.id for s in definition.path()]
    if signal.target_step not in names:
        raise UnknownStep(f"workflow {definition.id!r} has no step {signal.target_step!r}")
    if names.index(signal.target_step) < names.index(step.id):
        raise UnknownStep(
            f"{signal.target_step!r} comes before the current step {step.id!r}; an instance "
            "never goes back"
        )
    return signal.target_step


def _skipped_required(
    definition: WorkflowDefinition, step: StepDefinition, target: str | None
) -> list[str]:
    names = [s.id for s in definition.path()]
    if target is None or target == step.next_step:
        return []
    between = names[names.index(step.id) + 1 : names.index(target)]
    return [name for name in between if definition.step(name).is_required]


def _not_done(definition: WorkflowDefinition, skipped: list[str]) -> list[str]:
    """What each required step a signal would skip still needs: none of it has run, so all
    of it is missing (`discovery: not done (min_messages 5, memory_facts)`)."""
    entries = []
    for name in skipped:
        step = definition.step(name)
        needs = [f"min_messages {step.min_messages}"] if step.min_messages else []
        needs += [criterion.checker for criterion in step.completion_criteria]
        entries.append(f"{name}: not done" + (f" ({', '.join(needs)})" if needs else ""))
    return entries


def _missing(step: StepDefinition, count: int, report: CriteriaReport | None) -> list[str]:
    missing = []
    if count < step.min_messages:
        missing.append(f"min_messages: {count}/{step.min_messages} messages")
    if step.completion_criteria:
        if report is None or report.step != step.id:
            missing.append("criteria: not checked")
        else:
            missing.extend(report.missing())
    return missing


def _blocked_reason(step: StepDefinition, count: int) -> str:
    if count < step.min_messages:
        # "1 message", not "1 messages": the reason is read by people (and parsed by the console).
        noun = "message" if step.min_messages == 1 else "messages"
        return f"step {step.id!r} needs at least {step.min_messages} {noun} (has {count})"
    return f"step {step.id!r} is required and its completion criteria are not met"


def _leave(t: _Turn, target: str | None, forced_missing: list[str] | None = None) -> DomainEvent:
    forced = forced_missing is not None
    warning = None
    if forced:
        then = "moved on" if target is not None else "the workflow completed"
        warning = f"max_messages ({t.step.max_messages}) reached on {t.step.id!r}; {then}"
    if target is None:
        summary = {"steps_completed": [*t.state.steps_completed, t.step.id], "forced": forced}
        return InstanceCompleted(
            at=t.now,
            command_id=t.command_id,
            final_step=t.step.id,
            forced=forced,
            warning=warning,
            missing_criteria=forced_missing or [],
            summary=summary,
        )
    return StepChanged(
        at=t.now,
        command_id=t.command_id,
        previous_step=t.step.id,
        current_step=target,
        forced=forced,
        warning=warning,
        missing_criteria=forced_missing or [],
    )


def needs_criteria(state: InstanceState, command: Command, definition: WorkflowDefinition) -> bool:
    """Whether `decide` could move the step, so the service must run the checkers first."""
    if isinstance(command, StartInstance) or state.status != "active":
        return False
    if _answered_elsewhere(state, command):
        return False
    step = definition.step(state.current_step)
    count = state.messages_in_step + (1 if isinstance(command, RecordExchange) else 0)
    completing = command.signal is not None and command.signal.action == "complete_step"
    return bool(step.completion_criteria) and (completing or count >= step.max_messages)


def progress(state: InstanceState, definition: WorkflowDefinition) -> float:
    """Steps done (completed or skipped) over the steps before the final one (seed 000 §7:
    greeting done, discovery active = 1/3 = 33%)."""
    return share_done(definition, state.current_step, state.status, state.steps_completed)
