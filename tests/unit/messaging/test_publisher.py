"""`JetStreamPublisher.publish_all` on a fake JetStream: pipelined, in order, stops at a failure."""

from __future__ import annotations

import asyncio
import inspect
from typing import cast

import pytest
from nats.js import JetStreamContext
from nats.js.api import PubAck
from nats.js.errors import APIError

from baton_messaging.publisher import JetStreamPublisher, PublishError


class FakeJetStream:
    """Acknowledges nothing until `release_after` messages were sent (None: never), then all."""

    def __init__(self, release_after: int | None, fail_at: int | None = None,
                 unsendable: int | None = None) -> None:  # fmt: skip
        self.release_after, self.fail_at, self.unsendable = release_after, fail_at, unsendable
        self.sent: list[tuple[str, bytes, dict[str, str]]] = []
        self.acks: list[asyncio.Future[PubAck]] = []

    async def publish_async(
        self, subject: str, payload: bytes, headers: dict[str, str]
    ) -> asyncio.Future[PubAck]:
        if len(self.sent) == self.unsendable:
            raise ConnectionError("connection closed")
        self.sent.append((subject, payload, headers))
        self.acks.append(asyncio.get_running_loop().create_future())
        if len(self.sent) == self.release_after:
            for seq, ack in enumerate(self.acks, start=1):
                if seq - 1 == self.fail_at:
                    ack.set_exception(APIError(code=503, description="storage full"))
                else:
                    ack.set_result(PubAck(stream="S", seq=seq))
        return self.acks[-1]


def publisher(js: FakeJetStream, timeout: float = 5.0) -> JetStreamPublisher:
    return JetStreamPublisher(cast(JetStreamContext, js), timeout=timeout)


def messages(n: int) -> list[tuple[str, bytes, str, dict[str, str]]]:
    return [(f"x.{i}", b"%d" % i, f"id-{i}", {"X-N": str(i)}) for i in range(n)]


async def test_every_message_is_sent_before_the_first_acknowledgement_is_awaited() -> None:
    # The fake acknowledges only once all five were sent: waiting for each ack in turn would
    # never get past the first.
    js, acked = FakeJetStream(release_after=5), []
    await publisher(js, timeout=2).publish_all(messages(5), acked.append)
    assert acked == [0, 1, 2, 3, 4]
    assert [(s, h) for s, _, h in js.sent] == [
        (f"x.{i}", {"X-N": str(i), "Nats-Msg-Id": f"id-{i}"}) for i in range(5)
    ]


async def test_the_first_refused_message_ends_the_batch_and_is_named() -> None:
    js, acked = FakeJetStream(release_after=5, fail_at=2), []
    with pytest.raises(PublishError, match=r"'x\.2' \(msg id id-2\) failed: APIError") as err:
        await publisher(js).publish_all(messages(5), acked.append)
    assert "storage full" in str(err.value)
    assert acked == [0, 1]  # 3 and 4 were acknowledged by the fake, and are not reported


async def test_a_message_that_cannot_be_sent_still_lets_the_ones_before_it_be_acknowledged() -> (
    None
):
    js, acked = FakeJetStream(release_after=2, unsendable=2), []
    with pytest.raises(PublishError, match=r"'x\.2' \(msg id id-2\) failed: ConnectionError"):
        await publisher(js).publish_all(messages(5), acked.append)
    assert acked == [0, 1]
    assert len(js.sent) == 2  # nothing after the unsendable one was sent


async def test_no_acknowledgement_in_time_names_the_message_waited_for() -> None:
    js, acked = FakeJetStream(release_after=None), []
    with pytest.raises(PublishError, match=r"'x\.0' \(msg id id-0\) failed: no acknowledgement"):
        await publisher(js, timeout=0.05).publish_all(messages(3), acked.append)
    assert acked == []
    assert all(ack.cancelled() for ack in js.acks)  # the client's slots are given back


async def test_nothing_to_publish_sends_nothing() -> None:
    js, acked = FakeJetStream(release_after=None), []
    await publisher(js, timeout=0.05).publish_all([], acked.append)
    assert (js.sent, acked) == ([], [])


def test_fake_matches_the_client_signature() -> None:
    # The fake stands in for nats-py's `publish_async`: the client must take what it is given.
    params = inspect.signature(JetStreamContext.publish_async).parameters
    assert {"subject", "payload", "headers"} <= set(params)
