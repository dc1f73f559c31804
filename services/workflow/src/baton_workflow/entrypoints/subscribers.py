"""NATS responders: decode a request, call the use case, encode the answer. Nothing else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from faststream.nats import NatsBroker
from pydantic import BaseModel

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
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
from baton_messaging import MessagingSettings, build_broker, respond
from baton_workflow.service import conversation, queries
from baton_workflow.service.handlers import WorkflowServices, start_workflow, take_turn

QUEUE = "workflow"

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


def subscribe(broker: NatsBroker, svc: WorkflowServices, health: Callable[[], bool]) -> None:
    """Register every responder of the workflow service on the broker."""
    for model, use_case in ROUTES:
        respond(broker, model, _bind(use_case, svc), queue=QUEUE)

    async def report(_: Query) -> HealthStatus:
        healthy = health()
        return HealthStatus(service="workflow", healthy=healthy, checks={"database": healthy})

    respond(broker, HEALTH_QUERIES["workflow"], report, queue=QUEUE)


def _bind(
    use_case: Callable[[WorkflowServices, Any], Awaitable[BaseModel]], svc: WorkflowServices
) -> Callable[[Any], Awaitable[BaseModel]]:
    async def handle(message: Any) -> BaseModel:
        return await use_case(svc, message)

    return handle


def documented_broker() -> NatsBroker:
    """The workflow broker with every responder declared but nothing behind it (for AsyncAPI)."""
    broker = build_broker(MessagingSettings(), "workflow")
    subscribe(broker, cast(WorkflowServices, None), health=lambda: False)
    return broker
