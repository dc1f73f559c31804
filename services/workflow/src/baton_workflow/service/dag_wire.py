"""A DAG run's log events as the contract events the platform sees (live clients, consumers).

Not every fact is published: which branch a condition chose and when a retry is due stay in
the log; every change of a step's status (a condition's decision included), the run's start
and end, and notifications go out. Each wire event takes the
id of the stored event it comes from, so the relay's `Nats-Msg-Id` makes a republish a no-op.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from baton_contracts import Event as WireEvent
from baton_contracts import workflow as wire
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.fold import apply
from baton_workflow.domain.dag.state import RunState


def wire_events(
    before: RunState | None, events: Sequence[re.RunEvent], ids: Sequence[UUID]
) -> tuple[list[WireEvent | None], RunState | None]:
    """For each event, its contract event or None, and the state after them all.

    `before` is the state the events follow; the fold is done once, here, for both.
    """
    out: list[WireEvent | None] = []
    state = before
    for event, event_id in zip(events, ids, strict=True):
        state = apply(state, event)
        out.append(_one(state, event, event_id))
    return out, state


def _one(state: RunState, event: re.RunEvent, event_id: UUID) -> WireEvent | None:
    common = {
        "event_id": event_id,
        "occurred_at": event.at,
        "user_id": state.user_id,
        "instance_id": state.run_id,
        "workflow": state.workflow,
    }
    if isinstance(event, re.RunStarted):
        return wire.RunStarted(
            **common,
            version_id=event.version_id,
            mode=event.mode,
            steps=[s.id for s in event.definition.all_steps()],
        )
    if isinstance(event, re.RunCompleted):
        return wire.RunCompleted(
            **common, status=event.status, error=event.error or None, cost_usd=event.cost_usd
        )
    if isinstance(event, re.NotificationRequested):
        return wire.WorkflowNotify(
            **common,
            step_id=event.step_id,
            kind=event.kind,
            message=event.text,
            notify_to=event.notify_to,
        )
    step_id = getattr(event, "step_id", None)
    status = _STATUS.get(type(event))
    if step_id is None or status is None:
        return None
    step = state.step(step_id)
    failure = event.status if isinstance(event, re.StepFailed) else None
    if failure is not None:
        status = "timeout" if failure == "timeout" else "error"
    return wire.RunStepChanged(
        **common,
        step_id=step_id,
        status=status,
        attempt=step.attempt,
        error=step.error or None,
        error_code=failure,
        progress=state.progress,
    )


_STATUS: dict[type, str] = {
    re.StepStarted: "running",
    re.StepSucceeded: "success",
    re.StepFailed: "error",
    re.StepSkipped: "skipped",
    re.ConditionEvaluated: "success",  # a condition step is decided in one event
    re.DelayStarted: "waiting",
    re.RetryScheduled: "waiting",
}
