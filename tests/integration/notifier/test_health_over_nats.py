import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest

from baton_messaging.embedded import EmbeddedNatsServer
from baton_notifier.bootstrap import Notifier, build
from baton_notifier.settings import NotifierSettings
from tests.held_ports import held_port

DEADLINE = 15.0


@pytest.fixture
def private_nats(tmp_path: Path) -> Iterator[EmbeddedNatsServer]:
    """A NATS server of this test's own, so it can be stopped (and its owners are only ours)."""
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def private_notifier(
    private_nats: EmbeddedNatsServer, make_settings: Callable[..., NotifierSettings]
) -> AsyncIterator[Notifier]:
    built = build(make_settings(private_nats.url))
    await built.start()
    assert built.link is not None
    await asyncio.wait_for(built.link.wait_started(), DEADLINE)
    yield built
    await built.stop()


def _client(notifier: Notifier) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=notifier.app), base_url="http://gw")


async def _health_until(client: httpx.AsyncClient, status: int) -> httpx.Response:
    """Poll /health until it answers `status` (NATS notices a dead server asynchronously)."""
    async with asyncio.timeout(DEADLINE):
        # Polling, not an Event: the state lives in the NATS client, which offers no callback here.
        while (response := await client.get("/health")).status_code != status:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    return response


async def test_health_is_ok_while_connected(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"nats": True}}


async def test_health_is_503_when_nats_was_never_there_and_the_gateway_keeps_serving(
    make_settings: Callable[..., NotifierSettings],
) -> None:
    notifier = build(make_settings(f"nats://127.0.0.1:{held_port()}"))
    await notifier.start()
    try:
        async with _client(notifier) as client:
            response = await client.get("/health")
            assert response.status_code == 503
            assert response.json() == {"status": "unavailable", "checks": {"nats": False}}
    finally:
        await notifier.stop()


async def test_health_turns_503_when_nats_stops(
    private_nats: EmbeddedNatsServer, private_notifier: Notifier
) -> None:
    async with _client(private_notifier) as client:
        assert (await client.get("/health")).status_code == 200
        private_nats.stop()
        response = await _health_until(client, 503)
    assert response.json()["checks"] == {"nats": False}


async def test_the_gateway_connects_once_nats_comes_up_later(
    tmp_path: Path, make_settings: Callable[..., NotifierSettings]
) -> None:
    server = EmbeddedNatsServer(store_dir=tmp_path / "late", port=held_port())
    notifier = build(make_settings(server.url))
    await notifier.start()
    try:
        async with _client(notifier) as client:
            assert (await client.get("/health")).status_code == 503
            server.start()
            await _health_until(client, 200)
    finally:
        await notifier.stop()
        server.stop()


async def test_services_shows_the_notifiers_own_responder_and_unreachable_owners(
    private_notifier: Notifier, auth: dict[str, str]
) -> None:
    async with _client(private_notifier) as client:
        response = await client.get("/api/services", headers=auth)
    assert response.status_code == 200
    services = response.json()["services"]
    assert services["notifier"] == {"status": "healthy", "checks": {"nats": True}, "detail": None}
    for owner in ("agent", "space", "trigger", "workflow"):
        assert services[owner]["status"] == "unreachable"
        assert f"{owner}.query.health" in services[owner]["detail"]
