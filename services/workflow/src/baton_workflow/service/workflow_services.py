"""What every use case is given (built by `bootstrap.build`): the instance repository, the
loaded definitions, the ports and the limits, with the per-instance lock a turn waits for and
the ownership check every request about an instance starts with."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from uuid import UUID

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_workflow.adapters.instances import LoadedInstance, SqlInstanceRepository
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.service.checkers import CheckerRegistry
from baton_workflow.service.ports import AgentRunnerQueries, Agents, Clock
from baton_workflow.service.write_deadlines import WriteTime

CONFLICT_SECONDS = 2.0
"""How long a turn keeps retrying conflicts, however many `conflict_retries` says. Each
conflict means another write went in (the instance moved on: no livelock), but a replica
that decides its queued turns on its fresh cache wins again and again against one that must
read first: with 150 signals at one instance over three replicas, 11 attempts left a few
answered `busy`."""


@dataclass
class WorkflowServices:
    """Everything the use cases need, built by `bootstrap.build`."""

    repo: SqlInstanceRepository
    definitions: dict[str, WorkflowDefinition]
    checkers: CheckerRegistry
    agent_runner: AgentRunnerQueries
    agents: Agents
    clock: Clock
    new_id: Callable[[], UUID]
    notify: Callable[[], None]
    checker_timeout: float = 2.0
    conflict_retries: int = 10
    conflict_seconds: float = CONFLICT_SECONDS
    history_size: int = 20
    turn_timeout: float | None = None
    """How long a chat turn may take from the moment it arrives (`agent_call_timeout_seconds`):
    the wait for the instance's lock and the agent call both count, so a turn queued behind
    another one is not asked of its agent after its caller gave up on it."""
    signal_timeout: float | None = None
    """How long a signal or an exchange may wait for its instance from the moment it arrives
    (`signal_timeout_seconds`), so one queued behind a slow chat turn is refused before its
    caller gives up on it, not recorded after."""
    writes: WriteTime = field(default_factory=WriteTime)
    """When a write must begin for its answer to reach its caller in time (a chat turn reads
    the caller's `deadline` with it: `WriteTime.caller_start_by`); no timeout of its own."""
    _locks: weakref.WeakValueDictionary[str, asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary, repr=False
    )

    def instance_lock(self, instance_id: str) -> asyncio.Lock:
        """One turn per instance at a time in this process; replicas still meet on versions."""
        lock = self._locks.get(instance_id)
        if lock is None:
            lock = self._locks[instance_id] = asyncio.Lock()
        return lock

    def deadline(self, seconds: float | None) -> datetime | None:
        """`seconds` from now, when a request that arrives now must be done by."""
        return None if seconds is None else datetime.now(UTC) + timedelta(seconds=seconds)

    def definition(self, workflow_id: str) -> WorkflowDefinition:
        """A loaded definition, or NOT_FOUND naming the id."""
        try:
            return self.definitions[workflow_id]
        except KeyError:
            raise RemoteError.of(
                ErrorCode.NOT_FOUND,
                f"unknown workflow {workflow_id!r}",
                [ErrorDetail(field="workflow_id", message=f"no workflow {workflow_id!r}")],
            ) from None

    async def owned(self, instance_id: str, user_id: str, fresh: bool = True) -> LoadedInstance:
        """The instance if it belongs to the user; NOT_FOUND otherwise (never says whose it is).

        `fresh=False` may answer from this process's cache without a round trip: right for a
        decision that is appended at the version it was made on (a stale one conflicts).
        """
        loaded = None if fresh else self.repo.cached(instance_id)
        if loaded is None:
            loaded = await self.repo.load(instance_id)
        if loaded is None or loaded.state.user_id != user_id:
            raise instance_not_found(instance_id)
        return loaded


def instance_not_found(instance_id: str) -> RemoteError:
    """NOT_FOUND naming the id, and the field it came in (an edge names it as its request
    gave it: `path.instance_id`); the same whether there is no such instance or it is another
    user's, which is never told."""
    return RemoteError.of(
        ErrorCode.NOT_FOUND,
        f"instance {instance_id!r} not found",
        [ErrorDetail(field="instance_id", message="no instance with this id")],
    )
