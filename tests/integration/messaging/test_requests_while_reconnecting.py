"""A request or publish while NATS is away: buffered until the client's pending buffer is
full, refused after that (a request as `unavailable`), and nothing kept behind for the refused
ones."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import ClassVar

import nats
import pytest
from nats.aio.client import Client
from pydantic import BaseModel

from baton_contracts import ErrorCode, Kind, Query, RemoteError, Subject
from baton_contracts.base import ReplyModel
from baton_messaging import request
from baton_messaging.embedded import EmbeddedNatsServer
from baton_messaging.publisher import JetStreamPublisher, PublishError
from tests.open_nats_clients import end_reconnecting

PENDING = 4096
"""The client's buffer for what it publishes while reconnecting (bytes)."""


class Noted(BaseModel):
    pass


class Note(Query):
    """A request of about `len(text)` bytes, which nobody answers here."""

    type: str = "test.note"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.QUERY, name="test_note")
    reply_model: ClassVar[ReplyModel] = Noted

    text: str


def note(size: int) -> Note:
    return Note(text="x" * size)


@pytest.fixture
async def away(tmp_path: Path) -> AsyncIterator[Client]:
    """A client whose NATS server has stopped: it is reconnecting, for as long as the test."""
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    nc = await nats.connect(
        server.url, max_reconnect_attempts=-1, reconnect_time_wait=0.05, pending_size=PENDING
    )
    await request_subscription_made(nc)
    server.stop()
    async with asyncio.timeout(10):
        while nc.is_connected:  # noqa: ASYNC110 - nats-py offers no awaitable for it
            await asyncio.sleep(0.01)
    yield nc
    with contextlib.suppress(ConnectionResetError):  # what it holds can go nowhere
        await nc.close()
    # A close while reconnecting every 50 ms loses its cancel about one time in ten on Python
    # 3.11 (`tests.open_nats_clients`): the loop reconnected for good, logging each refusal at
    # ERROR into every later test's records.
    await end_reconnecting(nc)


async def request_subscription_made(nc: Client) -> None:
    """nats-py subscribes its reply inbox on the first request: make it while connected."""
    with pytest.raises(RemoteError):
        await request(nc, note(1), timeout=0.2)


def pending_replies(nc: Client) -> int:
    return len(nc._resp_map)


async def test_a_request_the_buffer_cannot_take_is_unavailable_and_leaves_nothing(
    away: Client,
) -> None:
    # Fits the buffer: held, to be sent once NATS is back (or to time out).
    buffered = asyncio.create_task(request(away, note(PENDING - 1000), timeout=5))
    await asyncio.sleep(0.05)
    kept = pending_replies(away)
    for _ in range(20):  # nats-py kept a reply's future for each of these, for ever
        with pytest.raises(RemoteError) as refused:
            await request(away, note(2000), timeout=5)
        assert refused.value.code == ErrorCode.UNAVAILABLE
        assert "reconnecting" in refused.value.body.message
    assert pending_replies(away) == kept
    buffered.cancel()


async def test_a_request_on_a_closed_connection_is_unavailable_and_leaves_nothing(
    away: Client,
) -> None:
    await away.close()
    for _ in range(5):
        with pytest.raises(RemoteError) as refused:
            await request(away, note(10), timeout=5)
        assert refused.value.code == ErrorCode.UNAVAILABLE
    assert pending_replies(away) == 0


async def test_a_publish_the_buffer_cannot_take_fails_and_leaves_no_slot_taken(
    away: Client,
) -> None:
    # nats-py kept a future and one of its 4,000 publish slots for each refused publish: a
    # relay retrying through a long outage would end up unable to publish at all.
    publisher = JetStreamPublisher(away.jetstream(), connection=away)
    messages = [("baton.test.a", b"x" * (PENDING + 1), "id-1", {})]
    for _ in range(20):
        with pytest.raises(PublishError, match="reconnecting"):
            await publisher.publish_all(messages, lambda _: None)
        with pytest.raises(PublishError, match="reconnecting"):
            await publisher.publish(*messages[0][:3])
    assert publisher.in_flight() == 0
    assert pending_replies(away) == 0


async def test_a_publish_while_nats_is_away_says_so_not_only_that_no_ack_came(
    away: Client,
) -> None:
    # The outbox relay logged "the broker did not take the events (... failed: no
    # acknowledgement within 5s)" every try of an outage, which reads like JetStream
    # refusing or being slow, while the service's own connection was down.
    publisher = JetStreamPublisher(away.jetstream(), timeout=0.2, connection=away)
    messages = [("baton.test.a", b"x", "id-1", {})]
    with pytest.raises(PublishError) as failed:
        await publisher.publish_all(messages, lambda _: None)
    assert "no acknowledgement within 0.2s: not connected to NATS" in str(failed.value)
    with pytest.raises(PublishError) as failed:
        await publisher.publish(*messages[0][:3])
    assert "not connected to NATS" in str(failed.value)
