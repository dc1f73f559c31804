"""A JetStream error reply to a pipelined publish (a full stream, say) fails that publish with
the server's reason. nats-py 2.16 raised it inside its reply handler instead: the publish
waited out its whole timeout as "no acknowledgement", and the connection's error callback was
told "Connection broken"."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import nats
import pytest
from nats.aio.client import Client
from nats.js.api import DiscardPolicy
from nats.js.errors import APIError, NotFoundError, ServiceUnavailableError

from baton_messaging.publisher import JetStreamPublisher, PublishError


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[tuple[Client, list[Exception]]]:
    errors: list[Exception] = []

    async def error_cb(exc: Exception) -> None:
        errors.append(exc)

    client = await nats.connect(nats_url, error_cb=error_cb)
    yield client, errors
    await client.close()


async def test_a_full_stream_fails_the_publish_with_its_reason(
    nc: tuple[Client, list[Exception]],
) -> None:
    client, errors = nc
    js = client.jetstream()
    name = f"FULL_{uuid.uuid4().hex[:8].upper()}"
    subject = f"test.full.{name}"
    await js.add_stream(name=name, subjects=[subject], max_msgs=1, discard=DiscardPolicy.NEW)
    # A timeout the test would not wait out: before, the publish failed only when it ended.
    publisher = JetStreamPublisher(js, timeout=60.0, connection=client)
    acked: list[int] = []
    await publisher.publish_all([(subject, b"1", "m1", {})], acked.append)
    with pytest.raises(PublishError, match="maximum messages exceeded") as failed:
        await publisher.publish_all([(subject, b"2", "m2", {})], acked.append)
    assert acked == [0]
    assert "m2" in str(failed.value) and "no acknowledgement" not in str(failed.value)
    assert errors == []  # the connection is fine, and nothing said otherwise
    assert publisher.in_flight() == 0


async def test_the_jetstream_api_calls_still_raise_their_errors(
    nc: tuple[Client, list[Exception]],
) -> None:
    client, _ = nc
    with pytest.raises(NotFoundError):
        await client.jetstream().stream_info(f"NONE_{uuid.uuid4().hex[:8].upper()}")
    made = APIError.from_error({"code": 503, "err_code": 10077, "description": "full"})
    assert isinstance(made, ServiceUnavailableError)
