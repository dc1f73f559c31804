"""Fixtures for the relay tests (a JetStream stream per test, and a way to read it back), and
the store on PostgreSQL's raw asyncpg path."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import nats
import pytest
from nats.js import JetStreamContext
from nats.js.api import StreamConfig

from baton_eventstore import NewEvent, OutboxMessage, SqlEventStore


@dataclass
class TestStream:
    """One stream capturing `<prefix>.>`, with a two-minute duplicate window."""

    __test__ = False
    js: JetStreamContext
    name: str
    prefix: str

    def event(self, n: int, stream_id: str = "s") -> NewEvent:
        """An event that asks to be published on this stream."""
        event_id = uuid.uuid4()
        body = f"{stream_id}:{n}".encode()
        message = OutboxMessage(f"{self.prefix}.{stream_id}", body, {"X-N": str(n)})
        return NewEvent(event_id, "test.happened", {"n": n}, publish=message)

    async def count(self) -> int:
        """Messages the stream holds."""
        return int((await self.js.stream_info(self.name)).state.messages)

    async def msg_ids(self) -> list[str]:
        """Every stored message's Nats-Msg-Id, in stream order."""
        total = await self.count()
        ids = []
        for seq in range(1, total + 1):
            msg = await self.js.get_msg(self.name, seq)
            ids.append((msg.headers or {})["Nats-Msg-Id"])
        return ids


@pytest.fixture
async def js(nats_url: str) -> AsyncIterator[JetStreamContext]:
    nc = await nats.connect(nats_url)
    yield nc.jetstream()
    await nc.close()


@pytest.fixture
async def stream(js: JetStreamContext) -> AsyncIterator[TestStream]:
    key = uuid.uuid4().hex[:10]
    name, prefix = f"TEST_EVT_{key}", f"test.evt.{key}"
    await js.add_stream(StreamConfig(name=name, subjects=[f"{prefix}.>"], duplicate_window=120))
    yield TestStream(js, name, prefix)
    await js.delete_stream(name)


@pytest.fixture
async def postgres_store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    """The store on a fresh PostgreSQL database, with its raw asyncpg appender."""
    store = await SqlEventStore.from_url(postgres_url)
    assert store.appender is not None  # the raw asyncpg path is the one under test
    yield store
    await store.close()
