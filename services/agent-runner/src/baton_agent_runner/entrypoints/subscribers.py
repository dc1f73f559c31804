"""NATS responders: decode a request, call the use case, encode the answer. Nothing else."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from faststream.nats import NatsBroker

from baton_agent_runner.service.queries import MemoryQueries
from baton_agent_runner.service.tasks import TaskRunner
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import HEALTH_QUERIES, HealthStatus, Query
from baton_contracts.agent_api import (
    AgentReply,
    Count,
    CountInboxItems,
    CountMemoryFacts,
    InboxItems,
    ListInboxItems,
    ListMemoryFacts,
    MemoryFacts,
    RunAgent,
    RunTask,
    TaskResult,
)
from baton_messaging import MessagingSettings, build_broker, respond

QUEUE = "agent"


def subscribe(
    broker: NatsBroker,
    runner: AgentRunner,
    queries: MemoryQueries,
    tasks: TaskRunner,
    health: Callable[[], bool],
    task_concurrency: int = 128,
) -> None:
    """Register every responder of the agent-runner on the broker."""

    async def run(cmd: RunAgent) -> AgentReply:
        return await runner.run(cmd)

    async def task(cmd: RunTask) -> TaskResult:
        return await tasks.run(cmd)

    async def memory_facts(query: CountMemoryFacts) -> Count:
        return await queries.count_facts(query)

    async def inbox_items(query: CountInboxItems) -> Count:
        return await queries.count_items(query)

    async def inbox(query: ListInboxItems) -> InboxItems:
        return await queries.inbox_items(query)

    async def memory(query: ListMemoryFacts) -> MemoryFacts:
        return await queries.memory_facts(query)

    async def report(_: Query) -> HealthStatus:
        healthy = health()
        return HealthStatus(service="agent", healthy=healthy, checks={"database": healthy})

    respond(broker, RunAgent, run, queue=QUEUE)
    # A DAG step may wait minutes on its model: more of them run at once than turns do.
    respond(broker, RunTask, task, queue=QUEUE, concurrency=task_concurrency)
    respond(broker, CountMemoryFacts, memory_facts, queue=QUEUE)
    respond(broker, CountInboxItems, inbox_items, queue=QUEUE)
    respond(broker, ListInboxItems, inbox, queue=QUEUE)
    respond(broker, ListMemoryFacts, memory, queue=QUEUE)
    respond(broker, HEALTH_QUERIES["agent"], report, queue=QUEUE)


def documented_broker() -> NatsBroker:
    """The agent-runner broker with every responder declared, nothing behind it (for AsyncAPI)."""
    broker = build_broker(MessagingSettings(), "agent-runner")
    subscribe(
        broker,
        cast(AgentRunner, None),
        cast(MemoryQueries, None),
        cast(TaskRunner, None),
        health=lambda: False,
    )
    return broker
