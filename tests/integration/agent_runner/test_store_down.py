"""A store that is down answers `unavailable` in time: refused connections and silent servers,
for the SQL stores (inbox, SQL memory) and for Mem0's Qdrant server."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from nats.aio.client import Client
from qdrant_client import QdrantClient
from qdrant_client.qdrant_remote import QdrantRemote

from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from baton_agent_runner.adapters.sql_stores import SqlInboxStore, SqlMemoryStore
from baton_agent_runner.bootstrap import build
from baton_agent_runner.service.ports import StoreUnavailable
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import (
    CountInboxItems,
    CountMemoryFacts,
    ListInboxItems,
    ListMemoryFacts,
)
from baton_eventstore import create_engine
from baton_messaging import request

from .conftest import Conversation, settings

STORE_TIMEOUT = 0.5


@pytest.fixture(params=["refused", "silent"])
def dead_port(request: pytest.FixtureRequest) -> Iterator[int]:
    """A port on 127.0.0.1 where nothing listens, or where nothing ever answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    if request.param == "refused":
        sock.close()
        yield port
        return
    sock.listen(16)  # the kernel accepts connections; nobody reads or writes
    yield port
    sock.close()


async def _unavailable(client: Client, query: object) -> str:
    with pytest.raises(RemoteError) as caught:
        await request(client, query, timeout=5.0)  # type: ignore[arg-type]
    assert caught.value.code == ErrorCode.UNAVAILABLE
    return caught.value.body.message


async def test_sql_stores_down_answer_unavailable(
    nats_url: str, sqlite_url: str, client: Client, dead_port: int, request: pytest.FixtureRequest
) -> None:
    dead = create_engine(f"postgresql+asyncpg://baton@127.0.0.1:{dead_port}/baton_agent")
    now = lambda: datetime.now(UTC)  # noqa: E731
    config = settings(nats_url, sqlite_url, store_timeout_seconds=STORE_TIMEOUT)
    app = build(config, inbox=SqlInboxStore(dead, now), memory=SqlMemoryStore(dead, now))
    await app.start()
    try:
        message = await _unavailable(client, ListInboxItems(user_id="u"))
        # Ours, not the caller's "no reply within 5s"; and whether it was down or silent.
        said = {
            "refused": "the inbox store is unavailable; try again later",
            "silent": f"the inbox store did not answer within {STORE_TIMEOUT:g}s; try again later",
        }
        assert message == said[request.node.callspec.params["dead_port"]]
        await _unavailable(client, CountInboxItems(user_id="u"))
        assert "memory store" in await _unavailable(client, ListMemoryFacts(user_id="u"))
        await _unavailable(client, ListMemoryFacts(user_id="u", query="anything"))
        await _unavailable(client, CountMemoryFacts(user_id="u"))
    finally:
        await app.stop()
        await dead.dispose()


async def test_a_turn_with_its_store_down_is_unavailable_naming_the_store(
    nats_url: str, sqlite_url: str, client: Client, dead_port: int, request: pytest.FixtureRequest
) -> None:
    dead = create_engine(f"postgresql+asyncpg://baton@127.0.0.1:{dead_port}/baton_agent")
    config = settings(nats_url, sqlite_url, store_timeout_seconds=STORE_TIMEOUT)
    app = build(config, inbox=SqlInboxStore(dead, lambda: datetime.now(UTC)))
    await app.start()
    try:
        with pytest.raises(RemoteError) as caught:
            await Conversation(client, "u").say("inbox_collector", "brain_dump", "milk")
        assert caught.value.code == ErrorCode.UNAVAILABLE
        # Which store, and whether it was down or silent; not the driver's text.
        said = {
            "refused": "the agent's inbox is unavailable",
            "silent": f"the agent's inbox did not answer within {STORE_TIMEOUT:g}s",
        }
        assert caught.value.body.message == said[request.node.callspec.params["dead_port"]]
    finally:
        await app.stop()
        await dead.dispose()


async def test_qdrant_down_answers_unavailable(
    nats_url: str, sqlite_url: str, client: Client, tmp_path: Path, dead_port: int
) -> None:
    memory = open_memory(tmp_path / "qdrant", None)
    memory.vector_store.client.close()
    # The server Mem0 talks to goes away after start-up.
    dead = QdrantClient(url=f"http://127.0.0.1:{dead_port}", timeout=1, check_compatibility=False)
    memory.vector_store.client = dead
    config = settings(nats_url, sqlite_url, store_timeout_seconds=STORE_TIMEOUT)
    app = build(config, memory=Mem0MemoryStore(memory))
    await app.start()
    try:
        assert "memory store" in await _unavailable(client, ListMemoryFacts(user_id="u"))
        await _unavailable(client, ListMemoryFacts(user_id="u", query="anything"))
        await _unavailable(client, CountMemoryFacts(user_id="u"))
    finally:
        await app.stop()


def test_qdrant_server_unreachable_at_start_up_is_one_clear_error(
    nats_url: str, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # qdrant-client checks the server's version on a thread of its own, whose warning would
    # land in whichever test runs next; this test is about our error, not that check.
    monkeypatch.setattr(QdrantRemote, "_check_compatibility", lambda *_, **__: None)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config = settings(nats_url, sqlite_url, qdrant_url=url, qdrant_path=tmp_path / "q")
    with pytest.raises(StoreUnavailable) as caught:
        build(config)
    assert str(caught.value).startswith(f"memory: Qdrant at {url} is unreachable")
