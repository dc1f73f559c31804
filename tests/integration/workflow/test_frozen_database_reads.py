"""A read sent through the gateway while the workflow's PostgreSQL hangs (stopped with SIGSTOP,
cut off by the network without a reset) is answered 503 by the workflow service itself, saying
its database did not answer in time, within the gateway's wait.

Each statement was given up on 1 s past the statement timeout (3 s on the defaults), and its
connection then closed with a goodbye the server never answered (2 s more); so was every other
pooled connection at its next checkout. A read took the gateway's whole 5 s, and the user got
its vaguer `no reply on 'workflow.query.list_active' within 5s`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from baton_notifier.bootstrap import Notifier
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.entrypoints.subscribers import QUERY_NO_ANSWER

from ...frozen_proxy import FrozenProxy
from .conftest import FakeAgentRunner, workflow_settings
from .test_gateway_waits_restart import auth, gateway_on, start

GATEWAY_TIMEOUT = 5.0  # the gateway's default, over the workflow's default statement timeout


@pytest.fixture
async def frozen(postgres_url: str) -> AsyncIterator[FrozenProxy]:
    async with FrozenProxy(postgres_url).running() as proxy:
        yield proxy


@pytest.fixture
async def workflow_behind(
    nats_url: str, frozen: FrozenProxy, agent_runner: FakeAgentRunner
) -> AsyncIterator[WorkflowApp]:
    app = build(workflow_settings(nats_url, frozen.proxied_url))
    await app.start()
    yield app
    frozen.thaw()  # its stop must not wait on a frozen server
    await app.stop()


@pytest.fixture
async def http(nats_url: str, workflow_behind: WorkflowApp) -> AsyncIterator[httpx.AsyncClient]:
    notifier: Notifier = await gateway_on(nats_url, timeout=GATEWAY_TIMEOUT)
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        yield client
    await notifier.stop()


@pytest.mark.postgres
@pytest.mark.timeout(60)
async def test_reads_while_the_database_hangs_are_the_services_own_503(
    http: httpx.AsyncClient, frozen: FrozenProxy
) -> None:
    started = await start(http, "ann")
    assert started.status_code == 201, started.text
    instance = started.json()["instance_id"]
    # Several pooled connections before the freeze: the reads after the first meet them.
    paths = ["/api/workflows/active", f"/api/workflows/{instance}"]
    warm = await asyncio.gather(*(http.get(p, headers=auth("ann")) for p in paths * 2))
    assert {r.status_code for r in warm} == {200}
    frozen.freeze()
    for path in paths:
        answer = await http.get(path, headers=auth("ann"))
        assert answer.status_code == 503, answer.text
        # The service's own answer, not the gateway's `no reply on ... within 5s`.
        assert answer.json()["error"]["message"] == QUERY_NO_ANSWER, path
