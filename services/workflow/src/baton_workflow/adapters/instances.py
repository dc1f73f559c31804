"""Instances on the event store: load by folding the log, save events + read row together."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import and_, func, or_, select

from baton_contracts import Event as WireEvent
from baton_contracts.workflow_api import InstanceSummary, InstanceView
from baton_eventstore import (
    NewEvent,
    OutboxMessage,
    RecordedEvent,
    RowConflict,
    RowWrite,
    SqlEventStore,
)
from baton_eventstore.engine import without_statement_timeout
from baton_messaging.requests import trace_headers
from baton_workflow.adapters.newest_cache import NewestCache
from baton_workflow.adapters.read_model import workflow_instances
from baton_workflow.adapters.utc import aware
from baton_workflow.domain.events import DomainEvent, event_from_record, event_payload
from baton_workflow.domain.state import InstanceState, fold

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
"""The instance cache's budget, in bytes of its instances' events (BATON_INSTANCE_CACHE_MB)."""
EVENT_OVERHEAD = 1536
"""What a folded event takes in memory beside its payload's text: measured with tracemalloc
at about 1,750 bytes an event of 220 bytes of JSON, and 1.16 times the JSON for events of
10 KB, so an event is counted as its payload's JSON plus this."""


class ActiveInstanceExists(Exception):
    """The user already has an active instance of that workflow."""


@dataclass(frozen=True)
class LoadedInstance:
    """An instance as its log says: the state and the events it was folded from."""

    state: InstanceState
    events: list[DomainEvent]
    event_ids: list[UUID]
    """Each event's id in the log, in the order of `events`: what a consumer of its wire twin
    keys its work by (the agent-runner's inbox items of a completed list)."""
    size: int = 0
    """About what the events take in memory (`event_size`): what the instance cache counts."""


@dataclass(frozen=True)
class Change:
    """One decided change: new events (with ids and wire twins) and the read row after it."""

    event_ids: Sequence[UUID]
    events: Sequence[DomainEvent]
    wire: Sequence[WireEvent | None]
    view: InstanceView
    state: InstanceState | None = None
    """The state after the change, so a successful save can refresh the cache."""


def stream_id(instance_id: str) -> str:
    """The event stream of one instance."""
    return f"workflow-instance-{instance_id}"


class SqlInstanceRepository:
    """Instances in the SQL event store, with the `workflow_instances` read model beside them.

    Folded instances are cached (LRU, at most `cache_size` of them and about `cache_bytes` of
    memory for their events: see `EVENT_OVERHEAD`). A load still asks the store for the
    events after the cached version, so replicas writing the same instance are seen; the cache
    only saves re-reading and re-folding the whole log on every turn.
    """

    def __init__(
        self,
        store: SqlEventStore,
        cache_size: int = 10_000,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        self._store = store
        self._cache: NewestCache[str, LoadedInstance] = NewestCache(
            cache_size,
            lambda loaded: loaded.state.version,
            weight=lambda loaded: loaded.size,
            budget=cache_bytes,
        )

    def cached(self, instance_id: str) -> LoadedInstance | None:
        """The instance as this process last saw it, without asking the store (may be stale:
        good for deciding, since an append on a stale version is refused as a conflict)."""
        return self._cache.get(instance_id)

    async def load(self, instance_id: str) -> LoadedInstance | None:
        """Fold the instance's log; None when there is no such instance."""
        cached = self._cache.get(instance_id)
        after = cached.state.version if cached is not None else 0
        records = await self._store.load(stream_id(instance_id), after)
        if not records:
            return cached
        new = [event_from_record(r.type, r.payload) for r in records]
        state = fold(new, cached.state if cached is not None else None)
        assert state is not None
        loaded = LoadedInstance(
            state=state,
            events=[*(cached.events if cached else ()), *new],
            event_ids=[*(cached.event_ids if cached else ()), *(r.event_id for r in records)],
            size=(cached.size if cached else 0) + sum(_event_size(r) for r in records),
        )
        self._remember(loaded)
        return loaded

    def _remember(self, loaded: LoadedInstance) -> None:
        self._cache.put(loaded.state.instance_id, loaded)

    def _after_save(self, expected_version: int, change: Change, size: int) -> None:
        key = change.view.instance_id
        before = self._cache.get(key)
        if change.state is None:
            self._cache.pop(key)
        elif expected_version == 0:
            self._remember(
                LoadedInstance(change.state, list(change.events), list(change.event_ids), size)
            )
        elif before is not None and before.state.version == expected_version:
            events = [*before.events, *change.events]
            ids = [*before.event_ids, *change.event_ids]
            self._remember(LoadedInstance(change.state, events, ids, before.size + size))
        else:
            self._cache.pop(key)

    @property
    def cache_bytes(self) -> int:
        """What the cached instances' events take in memory, as counted (`EVENT_OVERHEAD`)."""
        return self._cache.weight

    async def records(
        self, instance_id: str, after: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The raw log of an instance, after version `after` (the first `limit` records)."""
        return await self._store.load(stream_id(instance_id), after, limit)

    async def save(
        self, expected_version: int, change: Change, start_by: datetime | None = None
    ) -> None:
        """Append the events (with their outbox rows) and write the read row, in one commit.

        Raises ConcurrencyConflict when the log moved past `expected_version`,
        ActiveInstanceExists when a new instance's row meets the user's active one, and
        StartByPassed when the append was still waiting for the database at `start_by`; in
        every case nothing was written.
        """
        rows = [
            _new_event(i, e, w)
            for i, e, w in zip(change.event_ids, change.events, change.wire, strict=True)
        ]
        # The view's own values, not a dump: a dump copied the whole context (every step's
        # data) once more per turn, only for the statement to encode it.
        values = dict(change.view) | {"version": expected_version + len(rows)}
        key = {"instance_id": values.pop("instance_id")}
        row = RowWrite(workflow_instances, key, values, create=expected_version == 0)
        stream = stream_id(key["instance_id"])
        try:
            await self._store.append(stream, expected_version, rows, row, start_by=start_by)
        except RowConflict:
            raise ActiveInstanceExists(change.view.workflow_id) from None
        # Each payload was encoded once for the append: its length costs nothing here.
        size = sum(len(r.payload_text) for r in rows) + EVENT_OVERHEAD * len(rows)
        self._after_save(expected_version, change, size)

    async def find_active(self, user_id: str, workflow_id: str) -> InstanceView | None:
        """The user's active instance of a workflow, if any.

        On PostgreSQL one statement on the store's asyncpg pool: every start asks it, and
        through SQLAlchemy it cost the service 0.38 ms of CPU, against about 0.07 ms here.
        """
        if self._store.appender is not None:
            rows = await self._store.appender.fetch(
                _PG_FIND_ACTIVE, user_id, workflow_id, repeatable=True
            )
            return _pg_view(rows[0]) if rows else None
        query = select(workflow_instances).where(
            workflow_instances.c.user_id == user_id,
            workflow_instances.c.workflow_id == workflow_id,
            workflow_instances.c.status == "active",
        )
        views = await self._views(query)
        return views[0] if views else None

    async def list_active(
        self, user_id: str, after: InstanceSummary | None = None, limit: int | None = None
    ) -> list[InstanceSummary]:
        """The user's active instances, oldest first (then by id): those listed after `after`,
        the first `limit` of them. Their contexts are not read: a list leaves them out."""
        wi = workflow_instances.c
        query = (
            select(*(wi[name] for name in _SUMMARY_COLUMNS))
            .where(wi.user_id == user_id, wi.status == "active")
            .order_by(wi.created_at, wi.instance_id)
            .limit(limit)
        )
        if after is not None:
            query = query.where(
                or_(
                    wi.created_at > after.created_at,
                    and_(wi.created_at == after.created_at, wi.instance_id > after.instance_id),
                )
            )
        return await self._summaries(query)

    async def get_summary(self, instance_id: str) -> InstanceSummary | None:
        """The read row of one instance without its context (not read: up to 512 KiB)."""
        wi = workflow_instances.c
        query = select(*(wi[name] for name in _SUMMARY_COLUMNS)).where(
            wi.instance_id == instance_id
        )
        summaries = await self._summaries(query)
        return summaries[0] if summaries else None

    async def _summaries(self, query: Any) -> list[InstanceSummary]:
        rows = (await self._store.read(query)).mappings().all()
        return [InstanceSummary.model_validate({k: aware(v) for k, v in r.items()}) for r in rows]

    async def get_view(self, instance_id: str) -> InstanceView | None:
        """The read row of one instance."""
        query = select(workflow_instances).where(workflow_instances.c.instance_id == instance_id)
        views = await self._views(query)
        return views[0] if views else None

    async def _views(self, query: Any) -> list[InstanceView]:
        rows = (await self._store.read(query)).mappings().all()
        fields = set(InstanceView.model_fields)
        return [
            InstanceView.model_validate({k: aware(v) for k, v in r.items() if k in fields})
            for r in rows
        ]


_VIEW_COLUMNS = [c.name for c in workflow_instances.c if c.name in InstanceView.model_fields]
_SUMMARY_COLUMNS = [c.name for c in workflow_instances.c if c.name in InstanceSummary.model_fields]
_PG_FIND_ACTIVE = (
    f"SELECT {', '.join(_VIEW_COLUMNS)} FROM {workflow_instances.name} "
    "WHERE user_id = $1 AND workflow_id = $2 AND status = 'active'"
)


def _pg_view(row: Mapping[str, Any]) -> InstanceView:
    """A read row as asyncpg returns it (JSON columns as text) -> the view SQLAlchemy gives."""
    values = dict(row)
    values["context"] = json.loads(values["context"])
    return InstanceView.model_validate(values)


def _event_size(record: RecordedEvent) -> int:
    """A stored event as the cache counts it: its payload's JSON as its append wrote it
    (`NewEvent.payload_text`), and `EVENT_OVERHEAD`."""
    return len(json.dumps(record.payload, default=str)) + EVENT_OVERHEAD


def _new_event(event_id: UUID, event: DomainEvent, wire: WireEvent | None) -> NewEvent:
    publish = None
    if wire is not None:
        publish = OutboxMessage(
            subject=wire.wire_subject(), body=wire.to_bytes(), headers=trace_headers()
        )
    return NewEvent(
        event_id=event_id, type=event.type, payload=event_payload(event), publish=publish
    )


async def active_steps(store: SqlEventStore) -> dict[tuple[str, str], int]:
    """How many instances are active, by (workflow id, current step).

    Read at start-up over the whole table, so without the statement timeout: with millions
    of instances it may take longer, and cut off it would keep the service from starting."""
    wi = workflow_instances.c
    query = (
        select(wi.workflow_id, wi.current_step, func.count())
        .where(wi.status == "active")
        .group_by(wi.workflow_id, wi.current_step)
    )
    async with store.engine.connect() as conn, without_statement_timeout(conn):
        rows = (await conn.execute(query)).all()
    return {(workflow_id, step): int(count) for workflow_id, step, count in rows}
