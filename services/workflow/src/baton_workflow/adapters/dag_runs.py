"""DAG runs: one event stream per run, the `dag_runs` list row, and the wire events they publish."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select

from baton_contracts import Event as WireEvent
from baton_eventstore import (
    NewEvent,
    OutboxMessage,
    RecordedEvent,
    RowConflict,
    RowWrite,
    SqlEventStore,
)
from baton_eventstore.port import PRUNE_LIMIT
from baton_messaging.requests import trace_headers
from baton_workflow.adapters.dag_run_starts import LimitedStarts, running_query
from baton_workflow.adapters.dag_tables import dag_runs
from baton_workflow.adapters.utc import aware
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.state import RunState
from baton_workflow.service.dag_ports import RunRequestExists
from baton_workflow.service.dag_wire import wire_events

_LEASE = "dagrun:"
"""The prefix of every run's lease name in the store's lease table."""


def run_stream(run_id: str) -> str:
    """The event stream of one run."""
    return f"dagrun-{run_id}"


OFF_LOOP_EVENTS = 500
"""More events than this are encoded or read back in a worker thread, fewer on the loop: a
step's few events take less than a thread's hop."""


class SqlDagRuns:
    """Loads and appends run events; the list row and outbox rows commit with them (one
    statement on PostgreSQL; a start held to its owner's limit, a transaction that counts the
    owner's running runs first: `dag_run_starts`)."""

    def __init__(self, store: SqlEventStore) -> None:
        self._store = store
        self._starts = LimitedStarts(store)

    async def load(self, run_id: str) -> tuple[RunState | None, int, list[re.RunEvent]]:
        """The run's state, its stream version and its events (None, 0, [] if unknown)."""
        records = await self._store.load(run_stream(run_id))
        # Off the event loop: a run of thousands of steps has tens of thousands of events.
        if len(records) > OFF_LOOP_EVENTS:
            history, state = await asyncio.to_thread(_decoded, records)
        else:  # a thread's hop costs more than decoding a few events
            history, state = _decoded(records)
        return state, len(records), history

    async def append(
        self,
        run_id: str,
        expected_version: int,
        before: RunState | None,
        events: Sequence[re.RunEvent],
        *,
        request_id: str | None = None,
        start_by: datetime | None = None,
        at_most: int | None = None,
    ) -> RunState:
        """Append after `expected_version` (ConcurrencyConflict if stale); the state after.
        StartByPassed, nothing written, when it had not started by `start_by` (aware). A start
        (`expected_version` 0) given `at_most` is written only while its owner has fewer runs
        running (RunsFull, nothing written, when not: `LimitedStarts`)."""
        if at_most is not None and expected_version != 0:
            raise ValueError(f"at_most: only a start (version 0) has it, not {expected_version}")
        # Off the event loop: a decision that starts thousands of steps has tens of thousands
        # of events to fold, encode and publish.
        if len(events) > OFF_LOOP_EVENTS:
            rows, after = await asyncio.to_thread(_encoded, before, events)
        else:
            rows, after = _encoded(before, events)
        values = _row(after, expected_version + len(rows))
        key = {"run_id": values.pop("run_id")}
        if expected_version == 0:
            row = RowWrite(dag_runs, key, values | {"request_id": request_id}, create=True)
        else:
            row = RowWrite(dag_runs, key, values, create=False)
        try:
            if at_most is None:
                await self._store.append(
                    run_stream(run_id), expected_version, rows, row, start_by=start_by
                )
            else:
                stream = run_stream(run_id)
                await self._starts.append(after.user_id, at_most, stream, rows, row, start_by)
        except RowConflict:  # the (owner, request_id) key: this start was made before
            raise RunRequestExists(request_id) from None
        return after

    async def find_request(self, owner: str, request_id: str) -> str | None:
        """The run an earlier start with this request id made."""
        query = select(dag_runs.c.run_id).where(
            dag_runs.c.owner == owner, dag_runs.c.request_id == request_id
        )
        return (await self._store.read(query)).scalar()

    async def listed(
        self,
        owner: str,
        workflow: str | None,
        limit: int | None,
        before: datetime | None = None,
        at: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """The owner's runs (never shadow ones), newest first: those started before `before`,
        or at `at`, when given; at most `limit` (None: all)."""
        query = select(dag_runs).where(dag_runs.c.owner == owner, dag_runs.c.mode != "shadow")
        if workflow is not None:
            query = query.where(dag_runs.c.workflow == workflow)
        if before is not None:
            query = query.where(dag_runs.c.started_at < before)
        if at is not None:
            query = query.where(dag_runs.c.started_at == at)
        query = query.order_by(dag_runs.c.started_at.desc()).limit(limit)
        rows = (await self._store.read(query)).mappings().all()
        return [{k: aware(v) for k, v in row.items()} for row in rows]

    async def started_at(
        self, owner: str, run_id: str, workflow: str | None = None
    ) -> datetime | None:
        """When the owner's run `run_id` (of `workflow`, when given) started (None: no such
        run of the owner's listed)."""
        query = select(dag_runs.c.started_at).where(
            dag_runs.c.run_id == run_id, dag_runs.c.owner == owner, dag_runs.c.mode != "shadow"
        )
        if workflow is not None:
            query = query.where(dag_runs.c.workflow == workflow)
        started = (await self._store.read(query)).scalar()
        return None if started is None else aware(started)

    async def owner_of(self, run_id: str) -> str | None:
        """Whose run it is (None when there is no such run)."""
        query = select(dag_runs.c.owner).where(dag_runs.c.run_id == run_id)
        return (await self._store.read(query)).scalar()

    async def running(self) -> list[str]:
        """Runs that have not finished (to resume after a restart), oldest first."""
        query = (
            select(dag_runs.c.run_id)
            .where(dag_runs.c.status == "running")
            .order_by(dag_runs.c.started_at)
        )
        return list((await self._store.read(query)).scalars())

    async def running_count(self, owner: str) -> int:
        """How many of the owner's runs have not finished (every mode), by `ix_dag_runs_running`."""
        return int((await self._store.read(running_query(owner))).scalar_one())

    async def log_version(self, run_id: str) -> int:
        """How many events the run's log holds (0 for an unknown run)."""
        return await self._store.stream_version(run_stream(run_id))

    async def take_lease(self, run_id: str, holder: str, ttl: float) -> bool:
        """Take or renew the right to drive a run; False while another process holds it."""
        return await self._store.outbox.acquire_lease(_LEASE + run_id, holder, ttl)

    async def drop_lease(self, run_id: str, holder: str) -> None:
        """Give the run up, so another process may take it at once."""
        await self._store.outbox.release_lease(_LEASE + run_id, holder)

    async def prune_leases(self, expired_for: float, limit: int = PRUNE_LIMIT) -> int:
        """Delete run leases that ran out more than `expired_for` seconds ago, `limit` per
        statement until one finds fewer; how many went.

        By the clock that times the store's leases (on PostgreSQL the server's, not this
        host's). Short statements, with the event loop (on SQLite, the process's other
        writers) let in between: a first prune after an upgrade meets every run's lease."""
        removed = 0
        while True:
            gone = await self._store.outbox.prune_leases(_LEASE, expired_for, limit)
            removed += gone
            if gone < limit:
                return removed
            await asyncio.sleep(0)


def _decoded(records: Sequence[RecordedEvent]) -> tuple[list[re.RunEvent], RunState | None]:
    """A run's stored events read back, and their fold."""
    history = [re.from_payload(r.type, r.payload) for r in records]
    return history, fold(history)


def _encoded(
    before: RunState | None, events: Sequence[re.RunEvent]
) -> tuple[list[NewEvent], RunState]:
    """The rows that store `events` (with the wire events they publish), and the state after."""
    ids = [uuid.uuid4() for _ in events]
    wires, after = wire_events(before, events, ids)
    assert after is not None
    rows = [
        NewEvent(event_id=i, type=e.type, payload=re.to_payload(e), publish=_publish(wire))
        for i, e, wire in zip(ids, events, wires, strict=True)
    ]
    return rows, after


def _row(state: RunState, stream_version: int) -> dict[str, Any]:
    return {
        "run_id": state.run_id,
        "owner": state.user_id,
        "workflow": state.workflow,
        "version": state.version,
        "mode": state.mode,
        "status": state.status,
        "started_at": state.started_at,
        "finished_at": state.finished_at,
        "cost_usd": state.cost_usd,
        "error": state.error or None,
        "stream_version": stream_version,
        "variables": dict(state.variables),
    }


def _publish(wire: WireEvent | None) -> OutboxMessage | None:
    if wire is None:
        return None
    return OutboxMessage(subject=wire.wire_subject(), body=wire.to_bytes(), headers=trace_headers())
