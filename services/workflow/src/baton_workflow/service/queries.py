"""Read-side use cases: every one checks the instance belongs to the asking user."""

from __future__ import annotations

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.workflow_api import (
    EventLog,
    ExplainInstance,
    Explanation,
    GetInstance,
    GetInstanceEvents,
    GetProgress,
    InstanceList,
    InstanceView,
    ListActiveInstances,
    LoggedEvent,
    ProgressView,
)
from baton_workflow.service.checkers import CheckContext
from baton_workflow.service.paging import json_size, paged
from baton_workflow.service.views import explanation, progress_view
from baton_workflow.service.workflow_services import WorkflowServices, instance_not_found


async def list_active(svc: WorkflowServices, query: ListActiveInstances) -> InstanceList:
    """One page of the user's active instances, without their contexts: after the instance
    `after`, at most `limit` and about `PAGE_BYTES` of JSON (at least one instance)."""
    after = None
    if query.after is not None:
        after = await svc.repo.get_summary(query.after)
        if after is None or after.user_id != query.user_id:
            raise RemoteError.of(
                ErrorCode.INVALID,
                f"instance {query.after!r} not found: no place in the list to go on from",
                [ErrorDetail(field="after", message="no instance with this id")],
            )
    # One instance past the page tells whether more follow.
    listed = await svc.repo.list_active(query.user_id, after, limit=query.limit + 1)
    page = paged(listed, query.limit, lambda s: len(s.model_dump_json()))
    more = len(page) < len(listed)
    return InstanceList(instances=page, next_after=page[-1].instance_id if more else None)


async def get_instance(svc: WorkflowServices, query: GetInstance) -> InstanceView:
    """One instance's read row, with its context."""
    return await _owned_view(svc, query.instance_id, query.user_id)


async def get_progress(svc: WorkflowServices, query: GetProgress) -> ProgressView:
    """Steps with their status, the counter and the percentage."""
    view = await _owned_view(svc, query.instance_id, query.user_id)
    return progress_view(view, svc.definition(view.workflow_id))


async def get_events(svc: WorkflowServices, query: GetInstanceEvents) -> EventLog:
    """One page of the instance's log, in order: after `after_version`, at most `limit`
    events and about `PAGE_BYTES` of JSON (at least one event)."""
    await _owned_view(svc, query.instance_id, query.user_id)
    # One record past the page tells whether more follow; a long log's rest is not read.
    records = await svc.repo.records(
        query.instance_id, after=query.after_version, limit=query.limit + 1
    )
    page = paged(records, query.limit, lambda r: json_size(r.payload))
    events = [
        LoggedEvent(version=r.version, type=r.type, payload=r.payload, recorded_at=r.recorded_at)
        for r in page
    ]
    more = len(page) < len(records)
    return EventLog(
        instance_id=query.instance_id,
        events=events,
        next_after_version=page[-1].version if more else None,
    )


async def explain(svc: WorkflowServices, query: ExplainInstance) -> Explanation:
    """Every criterion of the current step checked now, with the numbers; none once the
    instance is completed (nothing is checked: it is done, not waiting)."""
    loaded = await svc.owned(query.instance_id, query.user_id)
    state = loaded.state
    definition = svc.definition(state.workflow_id)
    if state.status == "completed":
        return explanation(state, definition, None)
    step = definition.step(state.current_step)
    ctx = CheckContext(state, step, None, state.messages_in_step, svc.agent_runner)
    report = await svc.checkers.evaluate(ctx, step.completion_criteria, svc.checker_timeout)
    return explanation(state, definition, report)


async def _owned_view(svc: WorkflowServices, instance_id: str, user_id: str) -> InstanceView:
    view = await svc.repo.get_view(instance_id)
    if view is None or view.user_id != user_id:
        raise instance_not_found(instance_id)
    return view
