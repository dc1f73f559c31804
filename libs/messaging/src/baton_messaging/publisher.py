"""Publishing committed events to JetStream, deduplicated by `Nats-Msg-Id`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nats.js import JetStreamContext


class PublishError(RuntimeError):
    """JetStream did not acknowledge a publish (no stream, timeout, or a server error)."""


@dataclass(frozen=True)
class PublishAck:
    """What JetStream said about one publish."""

    stream: str
    seq: int
    duplicate: bool


class JetStreamPublisher:
    """Publishes with `Nats-Msg-Id` set, so JetStream drops a republish inside its window."""

    def __init__(self, js: JetStreamContext, timeout: float = 5.0) -> None:
        self._js = js
        self._timeout = timeout

    async def publish(
        self, subject: str, body: bytes, msg_id: str, headers: Mapping[str, str] | None = None
    ) -> PublishAck:
        """Publish one message and wait for JetStream's acknowledgement."""
        all_headers = {**(headers or {}), "Nats-Msg-Id": msg_id}
        try:
            ack = await self._js.publish(subject, body, timeout=self._timeout, headers=all_headers)
        except Exception as exc:  # nats raises several unrelated types; callers need one
            raise PublishError(f"publish to {subject!r} (msg id {msg_id}) failed: {exc}") from exc
        return PublishAck(stream=ack.stream, seq=ack.seq, duplicate=bool(ack.duplicate))
