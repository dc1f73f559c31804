"""The one place that builds and wires every adapter; tests call `build` with overrides."""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from faststream.nats import NatsBroker

from baton_eventstore import (
    RELAY_PAYLOAD_BYTES,
    OutboxRelay,
    SqlEventStore,
    migrate,
    with_disk_room,
)
from baton_eventstore.closing import GOODBYE_SECONDS
from baton_eventstore.engine import database_answers
from baton_eventstore.replica_id import ReplicaIdFile
from baton_eventstore.unusable import DATABASE_SETTING, engine_for, first_use
from baton_messaging import (
    JetStreamPublisher,
    MessagingSettings,
    broadcast,
    build_broker,
    caller_now,
    cancel_and_wait,
    declare_streams,
    start_broker,
    stop_serving,
)
from baton_workflow.adapters import dag_tables, read_model
from baton_workflow.adapters.agent_runner import (
    PROFILES_TIMEOUT,
    NatsAgentRunnerQueries,
    NatsAgents,
    NatsKnownAgents,
    NatsTaskAgents,
)
from baton_workflow.adapters.clock import SystemClock
from baton_workflow.adapters.dag_definitions import SqlDagDefinitions
from baton_workflow.adapters.dag_runs import SqlDagRuns
from baton_workflow.adapters.definitions import load_definitions
from baton_workflow.adapters.instances import SqlInstanceRepository, active_steps
from baton_workflow.adapters.skills import build_skills
from baton_workflow.adapters.tools import StepToolsConfig, build_tools
from baton_workflow.domain.definitions import stranded
from baton_workflow.domain.errors import DefinitionInvalid
from baton_workflow.entrypoints.subscribers import subscribe
from baton_workflow.service import agent_slugs
from baton_workflow.service.checkers import (
    CheckerRegistry,
    builtin_checkers,
    load_checker_modules,
)
from baton_workflow.service.dag_checking import make_checker
from baton_workflow.service.dag_definitions import DagCatalog
from baton_workflow.service.dag_runs import DagExecutor, DagRunsService, StepRunners
from baton_workflow.service.workflow_services import WorkflowServices
from baton_workflow.service.write_deadlines import WriteTime
from baton_workflow.settings import DUPLICATE_WINDOW_SECONDS, STREAMS_OWNED, WorkflowSettings

logger = logging.getLogger("baton.workflow")
STOP_AFTER_GRACE_SECONDS = 3.0
"""How long a stop may go on past its grace (`stop_grace_seconds`) in all: the relay's last
publish and tidying up, then the database pools' goodbyes (`GOODBYE_SECONDS`). Under
`baton up`'s `KILL_MARGIN_SECONDS`, so a database that answers nothing is given up on before
the stop is killed; what was not published stays in the outbox for the next start."""
RELAY_TIDY_SECONDS = 0.5
"""Of `STOP_AFTER_GRACE_SECONDS`, what the relay's last flush leaves for its stop: deleting the
published rows and releasing its lease (milliseconds on a database that answers)."""
REPLICA_ID_FILE = "workflow-replica-id"
"""In `BATON_DATA_DIR`: the name this replica holds its leases under, kept across restarts."""


@dataclass
class WorkflowApp:
    """The running service: store, broker, relay and the use cases they serve."""

    settings: WorkflowSettings
    store: SqlEventStore
    broker: NatsBroker
    services: WorkflowServices
    catalog: DagCatalog
    runs: DagRunsService
    relay: OutboxRelay | None = None
    ready: bool = field(default=False)
    replica: ReplicaIdFile | None = None
    agents_check: asyncio.Task[list[str]] | None = None

    async def start(self) -> None:
        """Migrate, connect, declare the workflow streams, answer requests, start the relay."""
        # The first use of the database: waited for while it is not up yet; one that can
        # never serve stops the service here.
        await first_use(DATABASE_SETTING, self.settings.database_url, self._migrate, logger)
        # The relay publishes outbox rows of up to what an append takes.
        await start_broker(self.broker, STREAMS_OWNED, min_payload=RELAY_PAYLOAD_BYTES)
        js = self.broker.connection.jetstream()
        publisher = JetStreamPublisher(
            js,
            redeclare=lambda: declare_streams(js, STREAMS_OWNED),
            connection=self.broker.connection,
        )
        holder = self._claim_replica_id()
        if holder is not None:
            self.runs.executor.holder = holder
        self.relay = OutboxRelay(
            self.store,
            publisher,
            lease_name="workflow-outbox",
            lease_ttl=self.settings.outbox_lease_seconds,
            holder=holder,
            duplicate_window=DUPLICATE_WINDOW_SECONDS,
        )
        self.relay.start()
        await self.runs.executor.start()
        self.ready = True
        self._check_agents()

    def _check_agents(self) -> None:
        """Warn of each conversation step whose agent no profile serves, once the agent-runner
        answers: in the background, as it may start after this service (`agent_slugs`)."""
        agents = self.catalog.agents
        if agents is None:
            return
        self.agents_check = asyncio.create_task(
            agent_slugs.warn_unserved_agents(
                self.services.definitions,
                agents,
                self.settings.workflow_definitions_dir,
                first_wait=agent_slugs.FIRST_WAIT,
                max_wait=agent_slugs.MAX_WAIT,
            ),
            name="workflow-agents-check",
        )
        self.agents_check.add_done_callback(_report_agents_check)

    async def healthy(self) -> bool:
        """Ready, and its database answers (`database_answers`)."""
        return self.ready and await database_answers(self.store.engine)

    async def checks(self) -> dict[str, bool]:
        """`database`: `healthy`. `events_published`: the outbox relay has not been failing
        for longer than `outbox_stall_seconds` (JetStream full or without the stream, say).
        `disk_has_room`, on SQLite: its file's disk has room for writes (`disk_room`).
        Only `database` decides `healthy`: a restart does not make room in JetStream, nor on a
        disk, and an orchestrator restarting every replica for it would stop the turns too."""
        relay = self.relay
        stalled = relay is not None and relay.stalled_for() > self.settings.outbox_stall_seconds
        checks = {"database": await self.healthy(), "events_published": not stalled}
        return with_disk_room(checks, self.store.engine)

    def _claim_replica_id(self) -> str | None:
        """The lease holder this replica had before a restart (None: a new one per process).

        Leases a killed process left behind are then renewed at once by its successor, not
        waited out; the file's lock keeps two live processes from sharing the name."""
        if self.settings.data_dir is None:
            return None
        self.replica = ReplicaIdFile(self.settings.data_dir, REPLICA_ID_FILE)
        return self.replica.claim()

    async def _migrate(self) -> None:
        await self.store.migrate()
        await migrate(self.store.engine, read_model.COMPONENT, read_model.STEPS)
        await migrate(self.store.engine, dag_tables.COMPONENT, dag_tables.STEPS)
        await self._check_active_instances()

    async def _check_active_instances(self) -> None:
        """Refuse to start on definitions that dropped a workflow or a step active instances are
        on: every turn of theirs would fail, so the deploy is stopped instead (DefinitionInvalid,
        naming the folder, the workflow, the step and how many instances)."""
        problems = stranded(await active_steps(self.store), self.services.definitions)
        if problems:
            raise DefinitionInvalid(str(self.settings.workflow_definitions_dir), problems)

    async def stop(self) -> None:
        """Stop taking requests (those in flight finish within the grace), publish what they
        committed, then stop the relay, the broker, and the database pools: the database work
        shares one deadline, `STOP_AFTER_GRACE_SECONDS` past the grace from the stop's start,
        so a database that answers nothing holds the stop no longer than that."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.stop_grace_seconds + STOP_AFTER_GRACE_SECONDS
        pools_from = deadline - GOODBYE_SECONDS  # the goodbyes come last, after the relay's
        self.ready = False
        if self.agents_check is not None:
            await cancel_and_wait([self.agents_check])  # it asks in a loop: see cancelling.py
        try:
            await self.runs.executor.stop()
            # Responders first: a turn answered during the grace commits after the relay stopped,
            # and its events waited in the outbox until the next start (days, maybe).
            await stop_serving(self.broker)
            if self.relay is not None:
                flush = pools_from - RELAY_TIDY_SECONDS - loop.time()
                if not await self.relay.flush(max(flush, 0.0)):
                    logger.info(
                        "the outbox is left for the relay that holds its lease, or the next start"
                    )
                await self.relay.stop(within=max(pools_from - loop.time(), 0.0))
            await self.broker.stop()
            await self.store.close(within=max(deadline - loop.time(), GOODBYE_SECONDS / 10))
        finally:
            if self.replica is not None:  # last: the leases under its name were given up above
                self.replica.release()

    def kick_relay(self) -> None:
        """Wake the relay right after a commit."""
        if self.relay is not None:
            self.relay.kick()


def _report_agents_check(task: asyncio.Task[list[str]]) -> None:
    # A fault of the check's own is told, never raised: it is advice, and the service serves on.
    if not task.cancelled() and (exc := task.exception()) is not None:
        logger.warning("the agents of the workflow definitions were not checked: %r", exc)


def build(settings: WorkflowSettings, **overrides: Any) -> WorkflowApp:
    """Build the service; `overrides` replace adapters by name (agent_runner, clock, ...)."""
    store = SqlEventStore(
        engine_for(
            DATABASE_SETTING,
            settings.database_url,
            pool_size=settings.database_pool_size,
            statement_timeout=settings.database_statement_timeout_seconds,
        )
    )
    messaging = MessagingSettings(
        nats_url=settings.nats_url, request_timeout_seconds=settings.request_timeout_seconds
    )
    broker = overrides.get("broker") or build_broker(messaging, "workflow")
    checkers: CheckerRegistry = overrides.get("checkers") or load_checker_modules(
        builtin_checkers(), settings.workflow_checker_modules
    )
    definitions = overrides.get("definitions") or load_definitions(
        settings.workflow_definitions_dir, checkers
    )
    app_ref: list[WorkflowApp] = []
    notify: Callable[[], None] = lambda: app_ref[0].kick_relay() if app_ref else None  # noqa: E731
    services = WorkflowServices(
        repo=SqlInstanceRepository(store, cache_bytes=settings.instance_cache_mb * 1024 * 1024),
        definitions=definitions,
        checkers=checkers,
        agent_runner=overrides.get("agent_runner")
        or NatsAgentRunnerQueries(broker, settings.checker_timeout_seconds),
        agents=overrides.get("agents") or NatsAgents(broker, settings.agent_call_timeout_seconds),
        clock=overrides.get("clock") or SystemClock(),
        new_id=overrides.get("new_id") or uuid.uuid4,
        notify=notify,
        checker_timeout=settings.checker_timeout_seconds,
        conflict_retries=settings.conflict_retries,
        history_size=settings.conversation_history,
        turn_timeout=settings.agent_call_timeout_seconds,
        signal_timeout=settings.signal_timeout_seconds,
        writes=WriteTime(lasts=settings.database_statement_timeout_seconds, caller_now=caller_now),
    )
    catalog, runs = _dag(settings, store, broker, services, overrides)
    app = WorkflowApp(
        settings=settings,
        store=store,
        broker=broker,
        services=services,
        catalog=catalog,
        runs=runs,
    )
    app_ref.append(app)
    subscribe(
        broker,
        services,
        catalog,
        runs,
        health=app.checks,
        stop_grace_seconds=settings.stop_grace_seconds,
    )
    return app


def _dag(
    settings: WorkflowSettings,
    store: SqlEventStore,
    broker: NatsBroker,
    services: WorkflowServices,
    overrides: dict[str, Any],
) -> tuple[DagCatalog, DagRunsService]:
    """DAG workflows: versioned definitions, runs, and the executor that drives them."""
    config = StepToolsConfig(
        default_timeout_seconds=settings.workflow_tool_timeout_seconds,
        max_response_bytes=settings.workflow_tool_max_response_bytes,
        max_redirects=settings.workflow_tool_max_redirects,
        allowed_url_schemes=tuple(settings.workflow_tool_url_schemes),
        denied_hosts=tuple(settings.workflow_tool_denied_hosts),
        tool_modules=tuple(settings.workflow_tool_modules),
        skill_modules=tuple(settings.workflow_skill_modules),
        search_url=settings.workflow_search_url,
    )
    tools = overrides.get("tools") or build_tools(config)
    skills = overrides.get("skills") or build_skills(config)
    allowlist = frozenset(settings.workflow_env_allowlist)
    writes = replace(services.writes, timeout=settings.workflow_dag_write_timeout_seconds)
    definitions = SqlDagDefinitions(store)
    catalog = DagCatalog(
        store=definitions,
        check=make_checker(allowlist, tools, skills),
        clock=services.clock,
        conflict_retries=settings.conflict_retries,
        agents=overrides.get("known_agents")
        or NatsKnownAgents(broker, min(PROFILES_TIMEOUT, settings.request_timeout_seconds)),
        writes=writes,
    )
    runs = SqlDagRuns(store)
    executor = DagExecutor(
        runs=runs,
        runners=StepRunners(
            agents=overrides.get("task_agents") or NatsTaskAgents(broker),
            tools=tools,
            skills=skills,
            clock=services.clock,
            agent_timeout=settings.workflow_agent_step_timeout_seconds,
            tool_timeout=settings.workflow_tool_timeout_seconds,
            agent_runner_wait=settings.workflow_agent_runner_wait_seconds,
        ),
        clock=services.clock,
        pricing=settings.workflow_pricing,
        notify=services.notify,
        lease_seconds=settings.workflow_dag_lease_seconds,
    )
    service = DagRunsService(
        definitions=definitions,
        runs=runs,
        executor=executor,
        clock=services.clock,
        env_allowlist=allowlist,
        # Read once at start-up, and only the allow-listed names: a workflow never sees others.
        env_values={k: os.environ[k] for k in allowlist if k in os.environ},
        announce=partial(broadcast, broker),
        writes=writes,
        max_runs_per_user=settings.workflow_max_runs_per_user,
    )
    return catalog, service
