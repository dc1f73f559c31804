"""DAG run starts on a real store, with the use case's other ports stood in for: what the tests
of the per-user limit of runs running at once start runs with."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.dag_api import DagRunAccepted, StartDagRun
from baton_eventstore import SqlEventStore, migrate
from baton_eventstore.tables import events
from baton_workflow.adapters import dag_tables
from baton_workflow.adapters.dag_runs import SqlDagRuns
from baton_workflow.domain import dag_versions as dv
from baton_workflow.service.dag_runs import DagRunsService, start_dag_run
from baton_workflow.service.write_deadlines import WriteTime

LIMIT = 3
STARTS = 12
T0 = datetime(2026, 12, 1, tzinfo=UTC)
WAITING = {"name": "wf", "steps": [{"id": "wait", "type": "delay", "delay": "1h"}]}
TOO_MANY = (
    f"you have {LIMIT} runs running, and at most {LIMIT} may run at once; start this one when "
    "another has ended, or cancel one"
)


class Definitions:
    """Every user's "wf", version 1: a run of it waits an hour."""

    def __init__(self) -> None:
        saved = dv.VersionSaved(name="wf", version=1, document=WAITING, action="create", at=T0)
        self.wf = dv.fold("wf", [saved])

    async def history(self, owner: str, name: str) -> dv.History:
        return self.wf if name == "wf" else dv.History(name=name)


class Executor:
    """Drives nothing: the runs it is given stay running."""

    def launch(self, run_id: str, state: Any) -> None:
        pass


class Clock:
    def now(self) -> datetime:
        return datetime.now(UTC)


def service(store: SqlEventStore, write_timeout: float | None = None) -> DagRunsService:
    """One workflow replica's run use cases on `store`."""
    return DagRunsService(
        definitions=Definitions(),  # type: ignore[arg-type]
        runs=SqlDagRuns(store),
        executor=Executor(),  # type: ignore[arg-type]
        clock=Clock(),
        writes=WriteTime(timeout=write_timeout),
        max_runs_per_user=LIMIT,
    )


async def opened(url: str) -> SqlEventStore:
    store = await SqlEventStore.from_url(url)
    await migrate(store.engine, dag_tables.COMPONENT, dag_tables.STEPS)
    return store


def start(user: str, key: str) -> StartDagRun:
    return StartDagRun(user_id=user, name="wf", request_id=key)


async def all_at_once(starts: list[tuple[DagRunsService, StartDagRun]]) -> list[DagRunAccepted]:
    """The starts sent together; the runs that went in (every other start refused too_many)."""
    answers = await asyncio.gather(
        *(start_dag_run(s, c) for s, c in starts), return_exceptions=True
    )
    accepted = [a for a in answers if isinstance(a, DagRunAccepted)]
    refused = [a for a in answers if not isinstance(a, DagRunAccepted)]
    assert all(isinstance(r, RemoteError) for r in refused), refused
    said = {(r.body.code, r.body.message) for r in refused if isinstance(r, RemoteError)}
    assert said <= {(ErrorCode.TOO_MANY, TOO_MANY)}, said
    return accepted


async def written(store: SqlEventStore, user: str) -> tuple[set[str], set[str]]:
    """The user's runs as the run list has them, and the run streams that hold events."""
    async with store.engine.connect() as conn:
        rows = await conn.execute(
            select(dag_tables.dag_runs.c.run_id).where(dag_tables.dag_runs.c.owner == user)
        )
        streams = await conn.execute(
            select(events.c.stream_id).where(events.c.stream_id.like("dagrun-%")).distinct()
        )
        return set(rows.scalars()), set(streams.scalars())
