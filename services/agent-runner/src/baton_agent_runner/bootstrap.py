"""The one place that builds and wires every adapter; tests call `build` with overrides."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from faststream.nats import NatsBroker
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql, sql_inbox, sql_logs, sql_stores
from baton_agent_runner.adapters.embedders import EmbedderSettings
from baton_agent_runner.adapters.fact_locks import fact_locks
from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import load_profiles
from baton_agent_runner.adapters.task_models import TaskAgents
from baton_agent_runner.adapters.warm_up import load_price_table
from baton_agent_runner.entrypoints.subscribers import WORKFLOW_EVENTS_STREAM, subscribe
from baton_agent_runner.service.log_pruning import LogPruner, prune_interval
from baton_agent_runner.service.ports import PrunableLog
from baton_agent_runner.service.queries import MemoryQueries
from baton_agent_runner.service.step_starts import StepStarts
from baton_agent_runner.service.tasks import TaskRunner
from baton_agent_runner.service.turns import AgentRunner
from baton_agent_runner.service.widget_lists import WidgetLists
from baton_agent_runner.settings import AgentRunnerSettings
from baton_eventstore import migrate, with_disk_room
from baton_eventstore.closing import close_engine
from baton_eventstore.engine import database_answers
from baton_eventstore.replica_id import ReplicaIdFile
from baton_eventstore.unusable import DATABASE_SETTING, engine_for, first_use
from baton_messaging import MessagingSettings, build_broker, caller_now, start_broker

logger = logging.getLogger("baton.agent_runner")
REPLICA_ID_FILE = "agent-replica-id"
"""In `BATON_DATA_DIR`: the name this replica claims keys under, kept across restarts."""


@dataclass
class AgentRunnerApp:
    """The running service: database, broker and the use cases they serve."""

    settings: AgentRunnerSettings
    engine: AsyncEngine
    broker: NatsBroker
    runner: AgentRunner
    queries: MemoryQueries
    tasks: TaskRunner
    pruner: LogPruner
    ready: bool = field(default=False)
    replica: ReplicaIdFile | None = None

    async def start(self) -> None:
        """Migrate the agent-runner's tables, connect, answer requests."""
        # The first use of the database: waited for while it is not up yet; one that can
        # never serve stops the service here.
        await first_use(
            DATABASE_SETTING,
            self.settings.database_url,
            lambda: migrate(self.engine, sql.COMPONENT, sql.STEPS),
            logger,
        )
        load_price_table()  # before the first request, which would wait for it
        # The step-start and list consumers need the workflow's event stream, whoever starts
        # first.
        await start_broker(self.broker, [WORKFLOW_EVENTS_STREAM])
        self.ready = True
        self.pruner.start()

    async def healthy(self) -> bool:
        """Ready, and its database answers (`database_answers`)."""
        return self.ready and await database_answers(self.engine)

    async def checks(self) -> dict[str, bool]:
        """`database`: `healthy`, which alone decides the service's health. `disk_has_room`,
        on SQLite: its file's disk has room for writes (`disk_room`), which a restart does
        not make."""
        return with_disk_room({"database": await self.healthy()}, self.engine)

    async def stop(self) -> None:
        """Stop answering and pruning, then close the database pool."""
        self.ready = False
        await self.pruner.stop()
        await self.broker.stop()
        await close_engine(self.engine)  # in time even when the database hangs
        close = getattr(self.runner.memory, "close", None)
        if close is not None:
            close()
        if self.replica is not None:  # last: nothing is called under its name any more
            self.replica.release()


def build(settings: AgentRunnerSettings, **overrides: Any) -> AgentRunnerApp:
    """Build the service; `overrides` replace adapters by name (agents, memory, inbox,
    task_agents, task_results, ...); `prune_every` sets the seconds between two prunes of the
    reply and task logs (tests make it short)."""
    replica, holder = _holder(settings)
    # Each statement bounded as its store call is: cut off by the call's own timeout alone, a
    # statement waiting for a lock went on in the server, and wrote once the lock went.
    engine = engine_for(
        DATABASE_SETTING,
        settings.database_url,
        pool_size=settings.database_pool_size,
        statement_timeout=settings.store_timeout_seconds,
    )
    messaging = MessagingSettings(
        nats_url=settings.nats_url, request_timeout_seconds=settings.request_timeout_seconds
    )
    broker = overrides.get("broker") or build_broker(messaging, "agent-runner")
    now = overrides.get("now") or (lambda: datetime.now(UTC))
    # Deadlines are read on the caller's clock (another host's); a test that sets this
    # process's clock alone reads them on that one.
    deadline_clock = overrides.get("caller_now") or (
        caller_now if "now" not in overrides else (lambda: None)
    )
    openai = OpenAISettings(
        base_url=settings.openai_base_url,
        api_key=settings.openai_api_key,
        timeout_seconds=settings.model_request_timeout_seconds,
        max_retries=settings.model_max_retries,
    )
    runner = AgentRunner(
        profiles=overrides.get("profiles") or load_profiles(settings.agent_profiles_dir),
        agents=overrides.get("agents") or AgentFactory(openai, settings.agent_model),
        memory=overrides.get("memory") or _memory(settings, engine, now),
        inbox=overrides.get("inbox") or sql_inbox.SqlInboxStore(engine, now),
        replies=overrides.get("replies") or sql_logs.SqlReplyLog(engine, now, holder),
        timeout=settings.agent_timeout_seconds,
        store_timeout=settings.store_timeout_seconds,
        now=now,
        caller_now=deadline_clock,
    )
    queries = MemoryQueries(runner.memory, runner.inbox, settings.store_timeout_seconds)
    tasks = TaskRunner(
        profiles=runner.profiles,
        models=overrides.get("task_agents") or TaskAgents(openai, settings.agent_model),
        results=overrides.get("task_results") or sql_logs.SqlTaskLog(engine, now, holder),
        prices=settings.model_prices,
        store_timeout=settings.store_timeout_seconds,
        now=now,
        caller_now=deadline_clock,
    )
    retention = timedelta(hours=settings.idempotency_retention_hours)
    logs = {"replies": runner.replies, "task results": tasks.results}
    pruner = LogPruner(
        # A log that cannot forget (a test's fake) is left alone.
        logs={name: log for name, log in logs.items() if isinstance(log, PrunableLog)},
        retention=retention,
        every=overrides.get("prune_every") or prune_interval(retention),
        now=now,
    )
    app = AgentRunnerApp(settings, engine, broker, runner, queries, tasks, pruner, replica=replica)
    subscribe(
        broker,
        runner,
        queries,
        tasks,
        health=app.checks,
        steps=StepStarts(runner.profiles, runner.inbox, settings.store_timeout_seconds),
        lists=WidgetLists(runner.inbox, settings.store_timeout_seconds),
        task_concurrency=settings.task_concurrency,
        max_user_share=settings.max_user_share,
        stop_grace_seconds=settings.stop_grace_seconds,
    )
    return app


def _holder(settings: AgentRunnerSettings) -> tuple[ReplicaIdFile | None, str]:
    """The name this process claims keys under (while it calls their model): the replica's,
    kept in `data_dir` so that after a kill the restarted process takes its claims up at once,
    or a new one per process (another process holds the folder, or there is none)."""
    if settings.data_dir is None:
        return None, uuid.uuid4().hex
    replica = ReplicaIdFile(settings.data_dir, REPLICA_ID_FILE)
    holder = replica.claim()
    return (replica, holder) if holder is not None else (None, uuid.uuid4().hex)


def _memory(settings: AgentRunnerSettings, engine: AsyncEngine, now: sql.Clock) -> Any:
    if settings.memory_backend == "sql":
        return sql_stores.SqlMemoryStore(engine, now)
    embedder = EmbedderSettings(
        kind=settings.embedder,
        base_url=settings.embedder_base_url,
        api_key=settings.embedder_api_key,
        model=settings.embedder_model,
        dims=settings.embedding_dims,
        timeout_seconds=settings.embedder_timeout_seconds,
        max_retries=settings.embedder_max_retries,
    )
    memory = open_memory(
        settings.qdrant_path, settings.qdrant_url, embedder, settings.store_timeout_seconds
    )
    # Replicas on one Qdrant server save a fact one at a time, under a lock in the database.
    return Mem0MemoryStore(memory, fact_locks(engine))
