"""DAG runs: start one, read them, and cancel one.

The executor that drives each run from its log until it ends is in `dag_executor`, the runners
that perform its steps' calls in `dag_steps`, and a run's API view in `dag_views`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import (
    CancelDagRun,
    DagRunAccepted,
    DagRunCancel,
    DagRunChanged,
    DagRunDetail,
    DagRunList,
    GetDagRun,
    ListDagRuns,
    StartDagRun,
)
from baton_eventstore import ConcurrencyConflict, StartByPassed
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.problems import InvalidWorkflow
from baton_workflow.domain.dag.scheduler import start_run
from baton_workflow.domain.dag.state import RunState
from baton_workflow.domain.dag.template_rules import env_keys
from baton_workflow.domain.dag.validation import resolve_variables
from baton_workflow.domain.dag_versions import StoredVersion
from baton_workflow.service.dag_definitions import invalid, not_found
from baton_workflow.service.dag_drive import OFF_LOOP_STEPS
from baton_workflow.service.dag_executor import DagExecutor
from baton_workflow.service.dag_ports import (
    DefinitionStore,
    RunRequestExists,
    RunsFull,
    RunStore,
)
from baton_workflow.service.dag_run_limits import earlier_if_full, earlier_or_too_many
from baton_workflow.service.dag_run_list import run_page
from baton_workflow.service.dag_steps import AGENT_STEP_TYPES, Call, StepRunners
from baton_workflow.service.dag_views import run_detail
from baton_workflow.service.ports import Clock
from baton_workflow.service.write_deadlines import WriteTime, not_written_in_time

# What moved out of this module is still imported from it (bootstrap, tests): one place to
# import the run machinery from, as before the split.
__all__ = [
    "AGENT_STEP_TYPES",
    "CANCEL_ATTEMPTS",
    "Call",
    "DagExecutor",
    "DagRunsService",
    "StepRunners",
    "cancel_dag_run",
    "get_dag_run",
    "list_dag_runs",
    "run_changed",
    "run_detail",
    "start_dag_run",
]

log = logging.getLogger(__name__)


# --- use cases ---------------------------------------------------------------------------


@dataclass
class DagRunsService:
    """What the run use cases need, built by `bootstrap.build`."""

    definitions: DefinitionStore
    runs: RunStore
    executor: DagExecutor
    clock: Clock
    env_allowlist: frozenset[str] = frozenset()
    env_values: Mapping[str, str] = field(default_factory=dict)
    new_id: Callable[[], str] = field(default_factory=lambda: lambda: uuid.uuid4().hex)
    announce: Callable[[DagRunChanged], Awaitable[None]] | None = None
    """Tells every workflow replica that a run's log was written outside its driver."""
    writes: WriteTime = field(default_factory=WriteTime)
    """By when its requests that write must begin writing, or write nothing."""
    max_runs_per_user: int = 100
    """Runs one user may have running at once (`dag_run_limits`)."""


START_NOT_WRITTEN_IN_TIME = not_written_in_time("start", "no run was started")
CANCEL_NOT_WRITTEN_IN_TIME = not_written_in_time("cancel", "the cancel was not recorded")


async def start_dag_run(svc: DagRunsService, command: StartDagRun) -> DagRunAccepted:
    """Start a run of the workflow's latest version (or return the one this request made).

    A repeated request id is found by the `dag_runs` unique key when the run is appended, so
    a first start asks nothing more of the database than the definition, the count of the
    user's running runs and the append. The append counts them again, in its transaction and
    while no other start of the user does, so the limit holds whatever arrives at once
    (`dag_run_limits`).

    The append starts by the write timeout from the arrival, and in time for the answer to
    reach the caller by its `deadline`, or not at all (`WriteTime`): behind another run's
    first decision (thousands of events in one write), or held up before this handler ran, it
    went in past the gateway's timeout, and the run was started after its caller had been told
    503.
    """
    start_by = svc.writes.start_by(command.deadline)
    history = await svc.definitions.history(command.user_id, command.name)
    latest = history.latest
    if not history.live or latest is None:
        if command.request_id is not None:  # the workflow went after this request started it
            earlier = await svc.runs.find_request(command.user_id, command.request_id)
            if earlier is not None:
                return await _accepted(svc, earlier, command)
        raise not_found(command.name)
    earlier = await earlier_if_full(svc.runs, command, svc.max_runs_per_user)
    if earlier is not None:
        return await _accepted(svc, earlier, command)
    run_id, now = svc.new_id(), svc.clock.now()
    try:
        # Off the event loop: checking 10,000 steps again takes the pure parser most of a second.
        started = await asyncio.to_thread(_first_event, svc, command, latest, run_id, now)
    except InvalidWorkflow as exc:
        raise invalid(exc.problems, f"a run of {command.name!r}") from None
    written = await _append_start(svc, command, started, start_by)
    if isinstance(written, str):
        return await _accepted(svc, written, command)
    svc.executor.launch(started.run_id, written)
    log.info(
        "run %s of %s started for user %s (%s)",
        started.run_id,
        started.version_id,
        started.user_id,
        started.mode,
    )
    return DagRunAccepted(
        run_id=started.run_id,
        workflow=started.workflow,
        version=started.version,
        version_id=started.version_id,
        mode=started.mode,
        status="running",
    )


async def _append_start(
    svc: DagRunsService, command: StartDagRun, started: re.RunStarted, start_by: datetime | None
) -> RunState | str:
    """The new run's state once written, or the run to answer with: the one this request id
    made before (a retry), or the user's earlier run under it when the user had no room left
    (`RunsFull`: other starts of the user went in since the count `earlier_if_full` read)."""
    limit = svc.max_runs_per_user
    try:
        return await svc.runs.append(
            started.run_id,
            0,
            None,
            [started],
            request_id=command.request_id,
            start_by=start_by,
            at_most=limit,
        )
    except StartByPassed:
        log.warning("a start of %s was not written in time; no run started", command.name)
        raise RemoteError.of(ErrorCode.UNAVAILABLE, START_NOT_WRITTEN_IN_TIME) from None
    except RunRequestExists:
        assert command.request_id is not None
        earlier = await svc.runs.find_request(command.user_id, command.request_id)
        assert earlier is not None
        return earlier
    except RunsFull as full:
        return await earlier_or_too_many(svc.runs, command, full.running, limit)


def _first_event(
    svc: DagRunsService, command: StartDagRun, latest: StoredVersion, run_id: str, now: datetime
) -> re.RunStarted:
    """The stored version checked again and the run's first event (InvalidWorkflow if not)."""
    definition = parse_definition(latest.document, env_allowlist=svc.env_allowlist, stored=True)
    return start_run(
        definition,
        run_id=run_id,
        now=now,
        variables=command.variables,
        env={k: svc.env_values[k] for k in env_keys(definition) if k in svc.env_values},
        mode=command.mode,
        version=latest.version,
        version_id=latest.version_id,
        user_id=command.user_id,
    )


async def _accepted(svc: DagRunsService, run_id: str, command: StartDagRun) -> DagRunAccepted:
    state, _, _ = await svc.runs.load(run_id)
    assert state is not None
    _require_same_start(state, command)
    return DagRunAccepted(
        run_id=run_id,
        workflow=state.workflow,
        version=state.version,
        version_id=state.version_id,
        mode=state.mode,
        status=state.status,
    )


def _require_same_start(state: RunState, command: StartDagRun) -> None:
    """A retry repeats its start; another start under a used request id is refused.

    Answered with the first run, a start of another workflow, or with other variables or
    another mode, was dropped unseen while its caller was told it had started. Variables are
    compared as the run resolved them, so leaving out one that has its default is the same.
    """
    try:
        same_variables = resolve_variables(state.definition, command.variables) == dict(
            state.variables
        )
    except InvalidWorkflow:
        same_variables = False
    if (state.workflow, state.mode) == (command.name, command.mode) and same_variables:
        return
    raise RemoteError.of(
        ErrorCode.CONFLICT,
        f"request id (Idempotency-Key) {command.request_id!r} already started run "
        f"{state.run_id} of {state.workflow!r} ({state.mode}) with other inputs; "
        "send a new start with a new key",
        [ErrorDetail(field="request_id", message="already used for a different start")],
    )


async def list_dag_runs(svc: DagRunsService, query: ListDagRuns) -> DagRunList:
    """A page of the user's runs (of one workflow when asked), newest first; shadow runs are
    not listed (`dag_run_list`)."""
    page = await run_page(svc.runs, query)
    # No runs: an empty list for a workflow that exists (or was deleted), 404 for a wrong name.
    listed_none = not page.runs and query.after is None
    if query.workflow is not None and listed_none and not await _known(svc, query):
        raise not_found(query.workflow, field="workflow")
    return page


async def _known(svc: DagRunsService, query: ListDagRuns) -> bool:
    assert query.workflow is not None
    return bool((await svc.definitions.history(query.user_id, query.workflow)).versions)


CANCEL_ATTEMPTS = 5


async def cancel_dag_run(svc: DagRunsService, command: CancelDagRun) -> DagRunCancel:
    """Record that the owner cancels the run; its driver then cancels what is in flight and
    ends it as `cancelled`. Asking again changes nothing; an ended run is a `conflict`.

    Written by the write timeout from the arrival and in time for the caller's `deadline`, or
    not at all (`unavailable`): a cancel that waited for the database behind another run's
    large write was recorded after its caller had been told 503."""
    start_by = svc.writes.start_by(command.deadline)
    for _ in range(CANCEL_ATTEMPTS):
        state, version, _ = await svc.runs.load(command.run_id)
        if state is None or state.user_id != command.user_id:
            raise _run_not_found(command.run_id)
        if state.cancel_requested is not None:
            return DagRunCancel(
                run_id=state.run_id,
                status=state.status,
                reason=state.cancel_requested,
                recorded=False,
            )
        if state.finished:
            raise RemoteError.of(
                ErrorCode.CONFLICT,
                f"run {command.run_id} already ended with status {state.status}; "
                "only a running run can be cancelled",
                # Named as an ended instance is: the gateway calls it `path.run_id`.
                [ErrorDetail(field="run_id", message=f"the run has ended ({state.status})")],
            )
        requested = re.RunCancelRequested(
            run_id=state.run_id, at=svc.clock.now(), reason=command.reason
        )
        try:
            await svc.runs.append(state.run_id, version, state, [requested], start_by=start_by)
        except ConcurrencyConflict:
            continue  # its driver wrote a step's result meanwhile: look again
        except StartByPassed:
            log.warning("a cancel of run %s was not written in time; not recorded", state.run_id)
            raise RemoteError.of(ErrorCode.UNAVAILABLE, CANCEL_NOT_WRITTEN_IN_TIME) from None
        svc.executor.poke(state.run_id)
        if svc.announce is not None:
            try:
                await svc.announce(DagRunChanged(run_id=state.run_id))
            except Exception as exc:  # recorded all the same: its driver sees it at its next write
                log.warning("could not announce the cancel of run %s: %s", state.run_id, exc)
        return DagRunCancel(
            run_id=state.run_id, status="running", reason=command.reason, recorded=True
        )
    raise RemoteError.of(
        ErrorCode.UNAVAILABLE,
        f"run {command.run_id} is changing too fast to record the cancel; try again",
    )


async def run_changed(svc: DagRunsService, notice: DagRunChanged) -> None:
    """Another replica wrote to a run's log: the drive here, if any, reads it again."""
    svc.executor.poke(notice.run_id)


def _run_not_found(run_id: str) -> RemoteError:
    return RemoteError.of(
        ErrorCode.NOT_FOUND,
        f"run {run_id!r} not found",
        [ErrorDetail(field="run_id", message=f"no run {run_id!r}")],
    )


async def get_dag_run(svc: DagRunsService, query: GetDagRun) -> DagRunDetail:
    """One of the user's runs with a page of its steps (all of them, as they fit a reply),
    their handoffs and their agent messages."""
    state, _, history = await svc.runs.load(query.run_id)
    if state is None or state.user_id != query.user_id:
        raise _run_not_found(query.run_id)
    # Off the event loop: the view of a run of thousands of steps is most of a second's work.
    if len(state.steps) > OFF_LOOP_STEPS:
        return await asyncio.to_thread(run_detail, state, history, query.steps_after, query.limit)
    return run_detail(state, history, query.steps_after, query.limit)
