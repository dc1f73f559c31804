"""A DAG run's start (its append after the owner's lock and count, in a transaction of its
own: its commit a COMMIT) whose PostgreSQL connection is cut at that commit (`CuttingProxy`):
the commit took effect and its answer was lost, or it never reached the server.

While the server answers, the start is answered once. When it went away with the connection,
the start fails `unavailable` without saying nothing was written (the workflow service's 503
then says a retry with the same Idempotency-Key takes effect at most once); sent again with
that key once the server is back, it makes one run: the first, when it had taken effect."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from baton_eventstore import SqlEventStore, is_unavailable, nothing_written
from baton_workflow.service.dag_runs import start_dag_run

from ...cutting_proxy import FATES, CuttingProxy
from .dag_starts import opened, service, start, written

pytestmark = pytest.mark.postgres


@pytest.fixture
async def proxy(postgres_url: str) -> AsyncIterator[CuttingProxy]:
    async with CuttingProxy(postgres_url).running() as proxy:
        yield proxy


@pytest.fixture
async def store(proxy: CuttingProxy) -> AsyncIterator[SqlEventStore]:
    store = await opened(proxy.proxied_url)
    yield store
    await proxy.come_back()
    await store.close()


@pytest.mark.parametrize("going_down", [False, True], ids=["server-up", "server-gone"])
@pytest.mark.parametrize("delivered", FATES)
async def test_a_run_start_cut_at_its_commit_makes_one_run(
    store: SqlEventStore, proxy: CuttingProxy, delivered: bool, going_down: bool
) -> None:
    runs, user, key = service(store), f"u-{uuid.uuid4().hex[:8]}", "start-1"
    proxy.cut_at_commit(delivered=delivered, going_down=going_down)
    try:
        first = await start_dag_run(runs, start(user, key))
    except Exception as exc:
        assert going_down, exc
        assert is_unavailable(exc) and not nothing_written(exc), exc
        first = None
    assert (proxy.cuts, proxy.cut_on) == (1, "COMMIT")
    await proxy.come_back()
    made, streams = await written(store, user)
    assert len(made) == (1 if delivered or not going_down else 0)
    again = await start_dag_run(runs, start(user, key))  # the client's retry, the same key
    if first is not None:
        assert again.run_id == first.run_id
    made, streams = await written(store, user)
    assert made == {again.run_id} and streams == {f"dagrun-{again.run_id}"}
    assert [e.version for e in await store.load(f"dagrun-{again.run_id}")] == [1]
