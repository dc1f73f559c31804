"""Ports of the DAG workflow use cases: where definitions and runs are kept."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from baton_contracts.agent_api import CancelTask, RunTask, TaskResult
from baton_workflow.domain.dag.events import RunEvent
from baton_workflow.domain.dag.state import RunState
from baton_workflow.domain.dag_versions import DefinitionEvent, History


class RunRequestExists(Exception):
    """A run was already started with this owner's request id (a retried start)."""


class RunsFull(Exception):
    """The owner had `running` runs running, as many as a start may find; nothing was written."""

    def __init__(self, running: int) -> None:
        super().__init__(f"{running} runs running")
        self.running = running


class KnownAgents(Protocol):
    """The agents the agent-runner has a profile for (`NatsKnownAgents`)."""

    async def slugs(self) -> list[str]:
        """Their slugs; RemoteError (`unavailable`) when the agent-runner does not answer."""
        ...


class DefinitionStore(Protocol):
    """Each owner's workflows as version histories (`SqlDagDefinitions`)."""

    async def history(self, owner: str, name: str) -> History:
        """Every version of the workflow; an empty history when it never existed."""
        ...

    async def append(
        self,
        owner: str,
        before: History,
        events: Sequence[DefinitionEvent],
        *,
        start_by: datetime | None = None,
    ) -> History:
        """Append after `before`; ConcurrencyConflict when another writer was first,
        StartByPassed (nothing written) when it was still waiting for the database at
        `start_by`."""
        ...

    async def listed(
        self, owner: str, after: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The owner's listed workflows by name (name, description, latest_version, steps,
        updated_at): those whose names sort after `after`, when given; at most `limit`."""
        ...


class RunStore(Protocol):
    """DAG runs as event streams with a list row (`SqlDagRuns`)."""

    async def load(self, run_id: str) -> tuple[RunState | None, int, list[RunEvent]]:
        """The run's state, stream version and events; (None, 0, []) when unknown."""
        ...

    async def append(
        self,
        run_id: str,
        expected_version: int,
        before: RunState | None,
        events: Sequence[RunEvent],
        *,
        request_id: str | None = None,
        start_by: datetime | None = None,
        at_most: int | None = None,
    ) -> RunState:
        """Append after `expected_version`; ConcurrencyConflict when another writer was first,
        StartByPassed (nothing written) when it was still waiting for the database at
        `start_by`. A start given `at_most` is written only while its owner has fewer runs
        running, counted exactly whatever other starts of the owner run at once (RunsFull,
        nothing written, when not)."""
        ...

    async def find_request(self, owner: str, request_id: str) -> str | None:
        """The run an earlier start with this request id made, if any."""
        ...

    async def listed(
        self,
        owner: str,
        workflow: str | None,
        limit: int | None,
        before: datetime | None = None,
        at: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """The owner's runs (shadow runs left out), newest first: those started before
        `before`, or at `at`, when given; at most `limit` (None: all)."""
        ...

    async def started_at(
        self, owner: str, run_id: str, workflow: str | None = None
    ) -> datetime | None:
        """When the owner's listed run `run_id` (of `workflow`, when given) started (None: no
        such run of the owner's)."""
        ...

    async def running(self) -> list[str]:
        """Ids of runs that have not finished."""
        ...

    async def running_count(self, owner: str) -> int:
        """How many of the owner's runs have not finished (every mode)."""
        ...

    async def log_version(self, run_id: str) -> int:
        """How many events the run's log holds (0 for an unknown run)."""
        ...

    async def take_lease(self, run_id: str, holder: str, ttl: float) -> bool:
        """Take or renew the right to drive a run; False while another process holds it."""
        ...

    async def drop_lease(self, run_id: str, holder: str) -> None:
        """Give the run up."""
        ...

    async def prune_leases(self, expired_for: float) -> int:
        """Delete the leases of runs that ran out more than `expired_for` seconds ago, all in
        one statement; how many went."""
        ...


class TaskAgents(Protocol):
    """Agents that answer DAG steps (`agent.cmd.task` in the agent-runner)."""

    async def run_task(self, request: RunTask, timeout: float, retry_for: float) -> TaskResult:
        """One step's answer within `timeout`; `RemoteError` (typed) when the agent-runner
        refuses or fails, or none answered. An agent-runner that is down (none takes the
        step, or the one that took it stopped) is waited for up to `retry_for` seconds."""
        ...

    async def cancel_task(self, notice: CancelTask) -> None:
        """Tell the agent-runner to stop a task this service no longer waits for."""
        ...
