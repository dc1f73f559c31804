"""NATS responders: decode a request, call the use case, encode the answer. Nothing else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from faststream.nats import NatsBroker

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.service.ports import InboxStore
from baton_agent_runner.service.queries import MemoryQueries
from baton_agent_runner.service.step_starts import StepStarts
from baton_agent_runner.service.tasks import TaskRunner
from baton_agent_runner.service.turns import AgentRunner
from baton_agent_runner.service.widget_lists import WidgetLists
from baton_contracts import HEALTH_QUERIES, STREAMS, HealthStatus, Query, StreamSpec
from baton_contracts.agent_api import (
    AgentProfiles,
    AgentReply,
    CancelTask,
    Count,
    CountInboxItems,
    CountMemoryFacts,
    InboxItems,
    ListAgentProfiles,
    ListInboxItems,
    ListMemoryFacts,
    MemoryFacts,
    RunAgent,
    RunTask,
    TaskResult,
)
from baton_contracts.workflow import (
    StepChanged,
    WidgetCompleted,
    WorkflowCompleted,
    WorkflowStarted,
    agent_token,
)
from baton_messaging import MessagingSettings, build_broker, durable_subscriber, listen, respond
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS

QUEUE = "agent"
CONSUMER = "agent-runner"

WORKFLOW_EVENTS_STREAM: StreamSpec = next(
    spec for spec in STREAMS if StepChanged.subject.pattern in spec.subjects
)
"""The workflow's event stream, which the step-start reactions consume."""


Handler = Callable[[Any], Awaitable[None]]
Decorator = Callable[[Handler], Handler]
"""What `durable_subscriber` gives: a decorator that subscribes a handler and returns it."""


def subscribe(
    broker: NatsBroker,
    runner: AgentRunner,
    queries: MemoryQueries,
    tasks: TaskRunner,
    health: Callable[[], Awaitable[dict[str, bool]]],
    steps: StepStarts,
    lists: WidgetLists,
    task_concurrency: int = 128,
    stop_grace_seconds: float = DEFAULT_STOP_GRACE_SECONDS,
    max_user_share: float = 1.0,
) -> None:
    """Register every responder and event consumer of the agent-runner on the broker; one
    user's turns, and one user's DAG steps, take at most `max_user_share` of their slots."""
    grace, share = stop_grace_seconds, max_user_share

    async def run(cmd: RunAgent) -> AgentReply:
        return await runner.run(cmd)

    async def task(cmd: RunTask) -> TaskResult:
        return await tasks.run(cmd)

    async def cancel_task(notice: CancelTask) -> None:
        await tasks.cancel(notice)

    async def memory_facts(query: CountMemoryFacts) -> Count:
        return await queries.count_facts(query)

    async def inbox_items(query: CountInboxItems) -> Count:
        return await queries.count_items(query)

    async def inbox(query: ListInboxItems) -> InboxItems:
        return await queries.inbox_items(query)

    async def memory(query: ListMemoryFacts) -> MemoryFacts:
        return await queries.memory_facts(query)

    async def profiles(_: ListAgentProfiles) -> AgentProfiles:
        return tasks.known_agents()

    async def report(_: Query) -> HealthStatus:
        checks = await health()
        return HealthStatus(service="agent", healthy=checks["database"], checks=checks)

    respond(broker, RunAgent, run, queue=QUEUE, stop_grace_seconds=grace, max_user_share=share)
    # A DAG step may wait minutes on its model: more of them run at once than turns do.
    respond(
        broker,
        RunTask,
        task,
        queue=QUEUE,
        concurrency=task_concurrency,
        stop_grace_seconds=grace,
        max_user_share=share,
    )
    listen(broker, CancelTask, cancel_task)  # every replica: the one running the task stops it
    respond(broker, CountMemoryFacts, memory_facts, queue=QUEUE, stop_grace_seconds=grace)
    respond(broker, CountInboxItems, inbox_items, queue=QUEUE, stop_grace_seconds=grace)
    respond(broker, ListInboxItems, inbox, queue=QUEUE, stop_grace_seconds=grace)
    respond(broker, ListMemoryFacts, memory, queue=QUEUE, stop_grace_seconds=grace)
    respond(broker, ListAgentProfiles, profiles, queue=QUEUE, stop_grace_seconds=grace)
    respond(broker, HEALTH_QUERIES["agent"], report, queue=QUEUE, stop_grace_seconds=grace)
    on_step_starts(broker, steps)
    on_instance_ends(broker, steps)
    on_completed_lists(broker, lists)


def step_start_filters(
    model: type[WorkflowStarted | StepChanged], agents: Sequence[str]
) -> list[str]:
    """The subjects of `model`'s events that start a step of one of `agents`.

    A step's start names its agent in the subject, so JetStream hands over only those; the
    layout before that token (`legacy_patterns`) is still taken whole, for a publisher that
    has not been upgraded yet, and the agent is then read from the event.
    """
    return [
        *(model.subject.filter(agent_token=agent_token(a)) for a in sorted(agents)),
        *model.subject.legacy_patterns,
    ]


def on_step_starts(broker: NatsBroker, steps: StepStarts) -> None:
    """Consume the events that start a step of an agent with `on_step_start` actions (one
    durable each, shared by replicas); with no such agent, nothing is consumed."""
    agents = steps.preparing_agents()
    if not agents:
        return

    def durable(model: type[WorkflowStarted | StepChanged], name: str) -> Decorator:
        subscribe: Decorator = durable_subscriber(
            broker,
            step_start_filters(model, agents),
            consumer=f"{CONSUMER}-{name}",
            stream=WORKFLOW_EVENTS_STREAM,
            from_new=True,
        )
        return subscribe

    @durable(WorkflowStarted, "started")
    async def started(event: WorkflowStarted) -> None:
        await steps.started(event.user_id, event.instance_id, event.initial_agent)

    @durable(StepChanged, "step-changed")
    async def step_changed(event: StepChanged) -> None:
        await steps.started(event.user_id, event.instance_id, event.current_agent)


def on_instance_ends(broker: NatsBroker, steps: StepStarts) -> None:
    """Consume every instance's end (one durable, shared by replicas) when an agent moves
    deferred items into the inbox; with none, no item is ever deferred and nothing is."""
    if not steps.promotes():
        return

    durable: Decorator = durable_subscriber(
        broker,
        WorkflowCompleted.subject.pattern,
        consumer=f"{CONSUMER}-completed",
        stream=WORKFLOW_EVENTS_STREAM,
        from_new=True,
    )

    @durable
    async def completed(event: WorkflowCompleted) -> None:
        await steps.instance_ended(event.user_id, event.instance_id)


def on_completed_lists(broker: NatsBroker, lists: WidgetLists) -> None:
    """Consume every list a user completed on a workflow step (one durable, shared by
    replicas), and save a brain dump's items to the inbox.

    Not `from_new`: a new durable starts at the stream's first such event. The workflow service
    announces lists only since this consumer exists, so that is exactly the lists not yet
    saved, for an agent-runner upgraded after the workflow service or created after a list was
    sent; their ids make any seen before a no-op.
    """
    durable: Decorator = durable_subscriber(
        broker,
        WidgetCompleted.subject.pattern,
        consumer=f"{CONSUMER}-widget-completed",
        stream=WORKFLOW_EVENTS_STREAM,
    )

    @durable
    async def widget_completed(event: WidgetCompleted) -> None:
        await lists.completed(event)


def documented_broker() -> NatsBroker:
    """The agent-runner broker with every responder declared, nothing behind it (for AsyncAPI)."""
    # The defaults, not the environment: importing this module for the docs must not fail on
    # (or depend on) a service's settings.
    broker = build_broker(MessagingSettings.model_construct(), "agent-runner")
    subscribe(
        broker,
        cast(AgentRunner, None),
        cast(MemoryQueries, None),
        cast(TaskRunner, None),
        health=_never,
        steps=StepStarts(load_profiles(SHIPPED_PROFILES), cast(InboxStore, None), timeout=0),
        lists=WidgetLists(cast(InboxStore, None), timeout=0),
    )
    return broker


async def _never() -> dict[str, bool]:
    """The health of a broker that only documents the responders."""
    return {"database": False}
