"""Publishing committed events to JetStream, deduplicated by `Nats-Msg-Id`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from nats.js import JetStreamContext
from nats.js.api import PubAck


class PublishError(RuntimeError):
    """JetStream did not acknowledge a publish (no stream, timeout, or a server error)."""

    @classmethod
    def of(cls, subject: str, msg_id: str, reason: str) -> PublishError:
        """The error for one message, named by its subject and msg id."""
        return cls(f"publish to {subject!r} (msg id {msg_id}) failed: {reason}")


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
            raise PublishError.of(subject, msg_id, str(exc)) from exc
        return PublishAck(stream=ack.stream, seq=ack.seq, duplicate=bool(ack.duplicate))

    async def publish_all(
        self,
        messages: Sequence[tuple[str, bytes, str, Mapping[str, str]]],
        acknowledged: Callable[[int], object],
    ) -> None:
        """Publish `(subject, body, msg_id, headers)` messages in order, pipelined.

        Every message is sent before the first acknowledgement is awaited, so a batch costs
        one round trip to JetStream rather than one per message; one connection keeps them in
        order. `acknowledged(i)` is called for each in order. The first one not acknowledged
        within the timeout (counted from the start) raises `PublishError`, and none after it
        is reported; a message that cannot be sent ends the sending, and the ones sent before
        it are still waited for.
        """
        pending: list[asyncio.Future[PubAck]] = []
        failure: Exception | None = None
        acked = 0  # so the first message not acknowledged is messages[acked]
        try:
            async with asyncio.timeout(self._timeout):
                for subject, body, msg_id, headers in messages:
                    all_headers = {**headers, "Nats-Msg-Id": msg_id}
                    try:
                        pending.append(
                            await self._js.publish_async(subject, body, headers=all_headers)
                        )
                    except Exception as exc:  # nats raises several unrelated types
                        failure = exc
                        break
                for ack in pending:
                    try:
                        await ack
                    except Exception as exc:  # an error reply, or the server has no stream
                        failure = exc
                        break
                    acknowledged(acked)
                    acked += 1
        except TimeoutError as exc:
            failure = exc
        finally:
            for ack in pending:
                ack.cancel()  # no-op once done; frees the client's slot of the rest
        if failure is not None:
            subject, _, msg_id, _ = messages[acked]
            reason = (
                f"no acknowledgement within {self._timeout:g}s"
                if isinstance(failure, TimeoutError)
                else f"{failure.__class__.__name__}: {failure}"
            )
            raise PublishError.of(subject, msg_id, reason) from failure
