"""`GET /api/inbox` and `GET /api/memory` while the agent-runner's PostgreSQL hangs (stopped with
SIGSTOP, cut off by the network without a reset): the agent-runner's own 503, saying which
store did not answer in time, within the gateway's wait.

Each read was cut off at `BATON_STORE_TIMEOUT_SECONDS` (4 s), and its connection then closed
with a goodbye the server never answered (2 s more): the gateway had answered its vaguer
`no reply on 'agent.query.inbox' within 5s` by then."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from baton_agent_runner.bootstrap import build
from baton_auth import mint_token
from baton_notifier.bootstrap import build as build_notifier
from baton_notifier.settings import NotifierSettings

from ...frozen_proxy import FrozenProxy
from .conftest import settings

SECRET = "agent-runner-frozen-tests-secret-32-bytes!"
GATEWAY_TIMEOUT = 5.0  # the gateway's default, over the agent-runner's default store timeout


@pytest.fixture
async def frozen(postgres_url: str, nats_url: str, tmp_path: Path) -> AsyncIterator[FrozenProxy]:
    """A proxy in front of the agent-runner's PostgreSQL, the agent-runner running behind it."""
    async with FrozenProxy(postgres_url).running() as proxy:
        app = build(
            settings(
                nats_url, proxy.proxied_url, memory_backend="sql", qdrant_path=tmp_path / "qdrant"
            )
        )
        await app.start()
        try:
            yield proxy
        finally:
            proxy.thaw()  # its stop must not wait on a frozen server
            await app.stop()


@pytest.fixture
async def http(nats_url: str, frozen: FrozenProxy) -> AsyncIterator[httpx.AsyncClient]:
    notifier = build_notifier(
        NotifierSettings(
            nats_url=nats_url, jwt_secret=SECRET, request_timeout_seconds=GATEWAY_TIMEOUT
        )
    )
    await notifier.start()
    assert notifier.link is not None
    await notifier.link.wait_started()
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        client.headers["Authorization"] = f"Bearer {mint_token(SECRET, 'ann')}"
        yield client
    await notifier.stop()


@pytest.mark.postgres
@pytest.mark.timeout(60)
async def test_inbox_and_memory_while_the_database_hangs_are_the_agent_runners_own_503(
    http: httpx.AsyncClient, frozen: FrozenProxy
) -> None:
    routes = {"/api/inbox": "inbox", "/api/memory": "memory"}
    for path in routes:
        assert (await http.get(path)).status_code == 200
    frozen.freeze()
    for path, store in routes.items():
        answer = await http.get(path)
        assert answer.status_code == 503, answer.text
        # The agent-runner's own answer, not the gateway's `no reply on ... within 5s`.
        message = answer.json()["error"]["message"]
        assert message == f"the {store} store did not answer within 4s; try again later", path
