"""DAG workflow definitions: a stream per (owner, workflow) and the `dag_workflows` list."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select

from baton_eventstore import ConcurrencyConflict, NewEvent, RowConflict, RowWrite, SqlEventStore
from baton_workflow.adapters.dag_tables import dag_workflows
from baton_workflow.adapters.newest_cache import NewestCache
from baton_workflow.adapters.utc import aware
from baton_workflow.domain.dag_versions import (
    DefinitionEvent,
    History,
    apply,
    fold_onto,
    from_record,
    to_payload,
)


def definition_stream(owner: str, name: str) -> str:
    """The stream of one owner's workflow; hashed so any user id fits the column."""
    digest = hashlib.blake2b(f"{owner}\0{name}".encode(), digest_size=16).hexdigest()
    return f"dagdef-{digest}"


class SqlDagDefinitions:
    """Loads a workflow's history and appends to it, keeping the list row in the same commit.

    Folded histories are cached (LRU, `cache_size` workflows). A load still asks the store for
    the events after the cached version, so versions other replicas saved are seen; the cache
    saves reading and folding every earlier version on each run start, which would otherwise
    grow with the workflow's number of versions.
    """

    def __init__(self, store: SqlEventStore, cache_size: int = 1024) -> None:
        self._store = store
        self._cache: NewestCache[tuple[str, str], History] = NewestCache(
            cache_size, lambda history: history.stream_version
        )

    async def history(self, owner: str, name: str) -> History:
        """Every version of the workflow (empty when it never existed)."""
        known = self._cache.get((owner, name)) or History(name=name)
        records = await self._store.load(definition_stream(owner, name), known.stream_version)
        history = fold_onto(known, [from_record(r.type, r.payload) for r in records])
        self._remember(owner, history)
        return history

    def _remember(self, owner: str, history: History) -> None:
        if history.stream_version:  # one that never existed is not worth keeping
            self._cache.put((owner, history.name), history)

    async def append(
        self,
        owner: str,
        before: History,
        events: Sequence[DefinitionEvent],
        *,
        start_by: datetime | None = None,
    ) -> History:
        """Append at `before`'s version (ConcurrencyConflict if another writer was first);
        StartByPassed, nothing written, when it had not started by `start_by` (aware)."""
        if not events:
            return before
        after = before
        for event in events:
            after = apply(after, event)
        rows = [NewEvent(event_id=uuid.uuid4(), type=e.type, payload=to_payload(e)) for e in events]
        stream = definition_stream(owner, before.name)
        try:
            row = _list_row(owner, after, first=before.stream_version == 0)
            await self._store.append(stream, before.stream_version, rows, row, start_by=start_by)
        except RowConflict:  # the list row of a first version another save created meanwhile
            actual = await self._store.stream_version(stream)
            raise ConcurrencyConflict(stream, before.stream_version, actual) from None
        self._remember(owner, after)
        return after

    async def listed(
        self, owner: str, after: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The owner's listed workflows, by name: those after `after` when given, at most
        `limit` (None: all)."""
        query = select(dag_workflows).where(
            dag_workflows.c.owner == owner, dag_workflows.c.deleted.is_(False)
        )
        if after is not None:
            query = query.where(dag_workflows.c.name > after)
        query = query.order_by(dag_workflows.c.name).limit(limit)
        rows = (await self._store.read(query)).mappings().all()
        return [{k: aware(v) for k, v in row.items()} for row in rows]


def _list_row(owner: str, history: History, *, first: bool) -> RowWrite:
    """The workflow's `dag_workflows` row as `history` leaves it: created with the stream's
    `first` events, updated by every later append (each writes it in the same commit, so the
    row exists exactly when the stream does)."""
    latest = history.latest
    assert latest is not None and history.created_at is not None
    assert history.updated_at is not None
    steps = latest.document.get("steps")
    values = {
        "latest_version": latest.version,
        "description": str(latest.document.get("description") or ""),
        "steps": len(steps) if isinstance(steps, list) else 0,
        "deleted": history.deleted,
        "created_at": history.created_at,
        "updated_at": history.updated_at,
    }
    key = {"owner": owner, "name": history.name}
    return RowWrite(dag_workflows, key, values, create=first)
