"""NATS responders: decode a request, call the use case, encode the answer. Nothing else."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, cast

from faststream.nats import NatsBroker
from pydantic import BaseModel

from baton_contracts import (
    HEALTH_QUERIES,
    Command,
    ErrorCode,
    HealthStatus,
    Query,
    RemoteError,
)
from baton_contracts.dag_api import (
    CancelDagRun,
    DagRunChanged,
    DeleteDagWorkflow,
    DiffDagVersions,
    GetDagRun,
    GetDagWorkflow,
    ListDagRuns,
    ListDagVersions,
    ListDagWorkflows,
    RollbackDagWorkflow,
    SaveDagWorkflow,
    StartDagRun,
    ValidateDagWorkflow,
)
from baton_contracts.workflow_api import (
    ExplainInstance,
    GetConversation,
    GetInstance,
    GetInstanceEvents,
    GetProgress,
    ListActiveInstances,
    RecordExchange,
    SendMessage,
    SignalWorkflow,
    StartWorkflow,
)
from baton_eventstore import is_unavailable, no_answer, nothing_written, storage_full
from baton_messaging import MessagingSettings, build_broker, listen, respond
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS
from baton_workflow.service import conversation, dag_definitions, dag_runs, queries
from baton_workflow.service.dag_definitions import DagCatalog
from baton_workflow.service.dag_runs import DagRunsService
from baton_workflow.service.handlers import start_workflow, take_turn
from baton_workflow.service.workflow_services import WorkflowServices

QUEUE = "workflow"
STORE_UNAVAILABLE = (
    "the workflow service's database is unavailable; try again later (a request retried with "
    "the same command id, client_message_id or Idempotency-Key takes effect at most once)"
)
QUERY_STORE_UNAVAILABLE = "the workflow service's database is unavailable; try again later"
"""A query's answer in an outage: it records nothing and carries no id to repeat, so the
command ids of `STORE_UNAVAILABLE` would only puzzle a client reading a page."""
QUERY_NO_ANSWER = (
    "the workflow service's database did not answer in time (it, or the network to it, "
    "hangs); try again later"
)
"""A query's answer when PostgreSQL answered nothing past the statement timeout (`NoAnswer`),
in time for the gateway's wait: its own `no reply ... within` said nothing of why."""
STORE_REFUSED_WRITE = (
    "the workflow service's database is unavailable; nothing was recorded: send it again (with "
    "the same command id, client_message_id or Idempotency-Key it takes effect at most once)"
)
"""A command's answer when the database refused its write or was not reached (a lock waited
on past the statement timeout, say): its one append was rolled back, as `nothing_written`
tells. A connection that broke meanwhile may have committed it: `STORE_UNAVAILABLE` then."""
STORE_FULL = (
    "the workflow service's storage is full (no space left for its database); nothing was "
    "recorded: send it again once space is freed (with the same command id, client_message_id "
    "or Idempotency-Key it takes effect at most once)"
)
"""A request's answer when the database's disk is full (SQLite's "database or disk is full"):
waiting does not help, freeing space does, so it says which. PostgreSQL's disk_full may come
from a commit that took effect: `STORE_FULL_MAYBE_WRITTEN` then."""
STORE_FULL_MAYBE_WRITTEN = (
    "the workflow service's storage is full (no space left for its database); try again once "
    "space is freed (a request retried with the same command id, client_message_id or "
    "Idempotency-Key takes effect at most once)"
)
logger = logging.getLogger("baton.workflow")

ROUTES: list[tuple[type[Any], Callable[[WorkflowServices, Any], Awaitable[BaseModel]]]] = [
    (StartWorkflow, start_workflow),
    (SignalWorkflow, take_turn),
    (RecordExchange, take_turn),
    (SendMessage, conversation.send_message),
    (GetConversation, conversation.get_conversation),
    (ListActiveInstances, queries.list_active),
    (GetInstance, queries.get_instance),
    (GetProgress, queries.get_progress),
    (GetInstanceEvents, queries.get_events),
    (ExplainInstance, queries.explain),
]


DAG_CATALOG_ROUTES: list[tuple[type[Any], Callable[[DagCatalog, Any], Awaitable[BaseModel]]]] = [
    (ListDagWorkflows, dag_definitions.list_workflows),
    (GetDagWorkflow, dag_definitions.get_workflow),
    (SaveDagWorkflow, dag_definitions.save_workflow),
    (ValidateDagWorkflow, dag_definitions.validate_workflow),
    (DeleteDagWorkflow, dag_definitions.delete_workflow),
    (ListDagVersions, dag_definitions.list_versions),
    (RollbackDagWorkflow, dag_definitions.rollback_workflow),
    (DiffDagVersions, dag_definitions.diff_versions),
]

DAG_RUN_ROUTES: list[tuple[type[Any], Callable[[DagRunsService, Any], Awaitable[BaseModel]]]] = [
    (StartDagRun, dag_runs.start_dag_run),
    (ListDagRuns, dag_runs.list_dag_runs),
    (GetDagRun, dag_runs.get_dag_run),
    (CancelDagRun, dag_runs.cancel_dag_run),
]


def subscribe(
    broker: NatsBroker,
    svc: WorkflowServices,
    catalog: DagCatalog,
    runs: DagRunsService,
    health: Callable[[], Awaitable[dict[str, bool]]],
    stop_grace_seconds: float = DEFAULT_STOP_GRACE_SECONDS,
) -> None:
    """Register every responder of the workflow service on the broker."""
    grace = stop_grace_seconds
    for model, use_case in ROUTES:
        respond(broker, model, _bind(use_case, svc), queue=QUEUE, stop_grace_seconds=grace)
    for model, catalog_case in DAG_CATALOG_ROUTES:
        respond(broker, model, _bind(catalog_case, catalog), queue=QUEUE, stop_grace_seconds=grace)
    for model, run_case in DAG_RUN_ROUTES:
        respond(broker, model, _bind(run_case, runs), queue=QUEUE, stop_grace_seconds=grace)
    listen(broker, DagRunChanged, partial(dag_runs.run_changed, runs))  # every replica

    async def report(_: Query) -> HealthStatus:
        checks = await health()
        return HealthStatus(service="workflow", healthy=checks["database"], checks=checks)

    respond(broker, HEALTH_QUERIES["workflow"], report, queue=QUEUE, stop_grace_seconds=grace)


def _bind(
    use_case: Callable[[Any, Any], Awaitable[BaseModel]], svc: Any
) -> Callable[[Any], Awaitable[BaseModel]]:
    async def handle(message: Any) -> BaseModel:
        try:
            return await use_case(svc, message)
        except RemoteError:
            raise
        except Exception as exc:
            if not is_unavailable(exc):
                raise  # a bug: `internal`, with the traceback logged by the responder
            # Every request during an outage lands here: one line each, no traceback.
            logger.warning(
                "%s: the database is unavailable (%s: %s)",
                type(message).__name__,
                type(exc).__name__,
                exc,
            )
            raise RemoteError.of(ErrorCode.UNAVAILABLE, _unavailable(message, exc)) from exc

    return handle


def _unavailable(message: Any, exc: Exception) -> str:
    """What a request the database failed is told. Each command writes once, as its last
    statement (an append with its read row), so a write refused means nothing of it was
    recorded; a query records nothing either way, and is only told to try again."""
    if storage_full(exc):
        return STORE_FULL if nothing_written(exc) else STORE_FULL_MAYBE_WRITTEN
    if not isinstance(message, Command):
        return QUERY_NO_ANSWER if no_answer(exc) else QUERY_STORE_UNAVAILABLE
    if nothing_written(exc):
        return STORE_REFUSED_WRITE
    return STORE_UNAVAILABLE


def documented_broker() -> NatsBroker:
    """The workflow broker with every responder declared but nothing behind it (for AsyncAPI)."""
    # The defaults, not the environment: importing this module for the docs must not fail on
    # (or depend on) a service's settings.
    broker = build_broker(MessagingSettings.model_construct(), "workflow")
    none = cast(Any, None)
    subscribe(broker, none, none, none, health=_never)
    return broker


async def _never() -> dict[str, bool]:
    """The health of a broker that only documents the responders."""
    return {"database": False}
