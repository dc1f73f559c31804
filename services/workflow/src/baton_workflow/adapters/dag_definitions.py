"""DAG workflow definitions: a stream per (owner, workflow) and the `dag_workflows` list."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from baton_eventstore import NewEvent, SqlEventStore
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
        self, owner: str, before: History, events: Sequence[DefinitionEvent]
    ) -> History:
        """Append at `before`'s version (ConcurrencyConflict if another writer was first)."""
        if not events:
            return before
        after = before
        for event in events:
            after = apply(after, event)
        rows = [NewEvent(event_id=uuid.uuid4(), type=e.type, payload=to_payload(e)) for e in events]
        async with self._store.transaction() as tx:
            await tx.append(definition_stream(owner, before.name), before.stream_version, rows)
            await tx.connection.execute(_upsert(tx.connection.dialect.name, owner, after))
        self._remember(owner, after)
        return after

    async def listed(self, owner: str) -> list[dict[str, Any]]:
        """The owner's listed workflows, by name."""
        query = (
            select(dag_workflows)
            .where(dag_workflows.c.owner == owner, dag_workflows.c.deleted.is_(False))
            .order_by(dag_workflows.c.name)
        )
        async with self._store.reader.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [{k: aware(v) for k, v in row.items()} for row in rows]


def _upsert(dialect: str, owner: str, history: History) -> Any:
    latest = history.latest
    assert latest is not None and history.created_at is not None
    assert history.updated_at is not None
    steps = latest.document.get("steps")
    values = {
        "owner": owner,
        "name": history.name,
        "latest_version": latest.version,
        "description": str(latest.document.get("description") or ""),
        "steps": len(steps) if isinstance(steps, list) else 0,
        "deleted": history.deleted,
        "created_at": history.created_at,
        "updated_at": history.updated_at,
    }
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = insert(dag_workflows).values(**values)
    changed = {k: v for k, v in values.items() if k not in ("owner", "name")}
    return statement.on_conflict_do_update(index_elements=["owner", "name"], set_=changed)
