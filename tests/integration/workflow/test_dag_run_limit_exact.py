"""The limit of runs one user may have running at once holds exactly, however many of the
user's starts arrive together: at one replica, or at two that share its database.

The count of the user's running runs was read, then the run appended in a second step, so
starts arriving together all found room and all went in (12 running of at most 3). The count
and the append are now one transaction that no other start of the user runs beside; the rest
are refused `too_many`, with nothing written for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from baton_eventstore import SqlEventStore
from baton_workflow.adapters.dag_runs import run_stream
from baton_workflow.service.dag_runs import start_dag_run

from .dag_starts import LIMIT, STARTS, all_at_once, opened, service, start, written


def _url(request: pytest.FixtureRequest) -> str:
    if request.param == "memory":  # the store has no appender of its own for it
        return "sqlite+aiosqlite://"
    if request.param == "postgres":
        request.applymarker(pytest.mark.postgres)
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def one_url(request: pytest.FixtureRequest) -> str:
    return _url(request)


@pytest.fixture(params=["sqlite", "postgres"])
def shared_url(request: pytest.FixtureRequest) -> str:
    return _url(request)


@pytest.fixture
async def store(one_url: str) -> AsyncIterator[SqlEventStore]:
    store = await opened(one_url)
    yield store
    await store.close()


@pytest.fixture
async def replicas(shared_url: str) -> AsyncIterator[list[SqlEventStore]]:
    """Three stores on one database, each with its own engine (and on SQLite its own write lock
    of the process): three replicas on PostgreSQL, three processes on one SQLite file."""
    stores = [await opened(shared_url) for _ in range(3)]
    yield stores
    for store in stores:
        await store.close()


async def test_starts_of_one_user_at_once_start_no_more_runs_than_the_limit(
    store: SqlEventStore,
) -> None:
    svc = service(store)
    accepted = await all_at_once([(svc, start("u", f"k{n}")) for n in range(STARTS)])

    assert len(accepted) == LIMIT
    runs, streams = await written(store, "u")
    assert runs == {a.run_id for a in accepted}  # nothing of the refused ones
    assert streams == {run_stream(a.run_id) for a in accepted}
    assert await svc.runs.running_count("u") == LIMIT


async def test_retries_of_starts_that_went_in_get_their_runs_at_the_limit(
    store: SqlEventStore,
) -> None:
    svc = service(store)
    first = await start_dag_run(svc, start("u", "k0"))
    # A retry behind new starts gets its run, also when they filled the limit before it came.
    news = [f"new{n}" for n in range(STARTS)]
    burst = await all_at_once([(svc, start("u", k)) for k in news] + [(svc, start("u", "k0"))])
    runs = {a.run_id for a in burst}
    assert len(burst) == LIMIT and first.run_id in runs
    went_in = [k for k in ["k0", *news] if await svc.runs.find_request("u", k) is not None]

    # At the limit, each retry gets its run and new starts are refused.
    again = await all_at_once(
        [(svc, start("u", k)) for k in went_in] + [(svc, start("u", f"more{n}")) for n in range(4)]
    )
    assert {a.run_id for a in again} == runs and len(again) == LIMIT
    other = await all_at_once([(svc, start("v", f"k{n}")) for n in range(2)])
    assert len(other) == 2  # another user is not held back
    assert (await written(store, "u"))[0] == runs


async def test_replicas_sharing_the_database_start_no_more_runs_than_the_limit(
    replicas: list[SqlEventStore],
) -> None:
    services = [service(store) for store in replicas]
    accepted = await all_at_once([(services[n % 3], start("u", f"k{n}")) for n in range(STARTS)])

    assert len(accepted) == LIMIT
    runs, streams = await written(replicas[0], "u")
    assert runs == {a.run_id for a in accepted}
    assert streams == {run_stream(a.run_id) for a in accepted}
