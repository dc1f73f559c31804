"""Publishing committed events to JetStream, deduplicated by `Nats-Msg-Id`."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, PubAck
from nats.js.errors import APIError, NoStreamResponseError, NotFoundError

from baton_messaging.outbound import unsendable

Message = tuple[str, bytes, str, Mapping[str, str]]
"""`(subject, body, msg_id, headers)`: `baton_eventstore.Outgoing` has this shape."""
LOOKUP_BATCH = 256
"""Headers fetched per request when looking msg ids up."""


def _error_replies_fail_the_publish() -> None:
    """nats-py (2.16) builds a JetStream error reply's exception with `APIError.from_error`,
    which raises it instead of returning it. Where the reply to a `publish_async` is handled,
    that raise leaves the reply handler before `future.set_exception`: the publish waits out
    its whole timeout ("no acknowledgement within 5s") instead of failing with the server's
    reason ("maximum messages exceeded"), and the connection's error callback reports the
    raise as "Connection broken". Returning it is what every caller needs: the two that raise
    it (`raise APIError.from_error(...)`) still do, and the handler fails the future at once.
    Worth fixing upstream; `test_publish_error_replies.py` checks the publish's error."""
    raising = APIError.from_error.__func__  # type: ignore[attr-defined]

    def returning(cls: type[APIError], err: dict[str, object]) -> APIError:
        try:
            made: APIError = raising(cls, err)  # a release that returns it, as it should
        except APIError as exc:
            return exc
        return made

    if not getattr(APIError.from_error, "_baton_returns", False):
        returning._baton_returns = True  # type: ignore[attr-defined]
        APIError.from_error = classmethod(returning)  # type: ignore[method-assign,assignment]


_error_replies_fail_the_publish()


class _Unsendable(Exception):
    """A message the connection would refuse now: not sent, and nothing kept for it."""


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

    def __init__(
        self,
        js: JetStreamContext,
        timeout: float = 5.0,
        redeclare: Callable[[], Awaitable[object]] | None = None,
        connection: Client | None = None,
    ) -> None:
        self._js = js
        self._timeout = timeout
        # `js`'s connection: with it, a message nats-py would refuse is refused here first,
        # with nothing kept for it (outbound.py).
        self._connection = connection
        # Called when no stream took a message: a process of an older release that started
        # later may have declared the stream without the subjects added since.
        self._redeclare = redeclare

    async def publish(
        self, subject: str, body: bytes, msg_id: str, headers: Mapping[str, str] | None = None
    ) -> PublishAck:
        """Publish one message and wait for JetStream's acknowledgement."""
        all_headers = {**(headers or {}), "Nats-Msg-Id": msg_id}
        if (why := self._unsendable(body)) is not None:
            raise PublishError.of(subject, msg_id, why)
        try:
            ack = await self._js.publish(subject, body, timeout=self._timeout, headers=all_headers)
        except Exception as exc:  # nats raises several unrelated types; callers need one
            raise PublishError.of(subject, msg_id, f"{exc}{self._away()}") from exc
        return PublishAck(stream=ack.stream, seq=ack.seq, duplicate=bool(ack.duplicate))

    async def publish_all(
        self,
        messages: Sequence[Message],
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
                    if (why := self._unsendable(body)) is not None:
                        failure = _Unsendable(why)
                        break
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
            if isinstance(failure, NoStreamResponseError) and self._redeclare is not None:
                with contextlib.suppress(Exception):  # the publish error below says what failed
                    await self._redeclare()  # so the caller's next try lands
            if isinstance(failure, TimeoutError):
                reason = f"no acknowledgement within {self._timeout:g}s{self._away()}"
            elif isinstance(failure, _Unsendable):
                reason = str(failure)
            else:
                reason = f"{failure.__class__.__name__}: {failure}"
            raise PublishError.of(subject, msg_id, reason) from failure

    def _away(self) -> str:
        """Why no acknowledgement came, when it is that the connection is down: the message
        waits in the client until it is back, and the caller's next try is dropped then as a
        duplicate (`Nats-Msg-Id`)."""
        if self._connection is None or self._connection.is_connected:
            return ""
        return ": not connected to NATS"

    def in_flight(self) -> int:
        """Publishes sent and not yet acknowledged, nor given up on."""
        return self._js.publish_async_pending()

    def _unsendable(self, body: bytes) -> str | None:
        if self._connection is None:
            return None
        if len(body) > self._connection.max_payload:
            return f"{len(body)} bytes; NATS takes at most {self._connection.max_payload}"
        return unsendable(self._connection, len(body))

    async def stored(self, messages: Sequence[Message], since: datetime) -> set[str]:
        """The msg ids of `messages` that their streams hold, among what they stored from
        `since` on (the relay asks before it publishes a row again that may have been
        published before the stream's duplicate window).

        Each stream is read by a consumer of its own that lives for this call, delivers
        headers only, and is filtered on the messages' subjects: Baton's carry the user's and
        the instance's ids, so only that instance's messages are read.
        """
        by_stream: dict[str, set[str]] = {}
        try:
            for subject in sorted({subject for subject, *_ in messages}):
                with contextlib.suppress(NotFoundError):  # no stream: held nowhere
                    stream = await self._js.find_stream_name_by_subject(subject)
                    by_stream.setdefault(stream, set()).add(subject)
            held: set[str] = set()
            for stream, subjects in by_stream.items():
                held |= await self._msg_ids(stream, sorted(subjects), since)
        except Exception as exc:  # nats raises several unrelated types; callers need one
            raise PublishError(
                f"looking up {len(messages)} msg ids in JetStream failed: "
                f"{exc.__class__.__name__}: {exc}"
            ) from exc
        return held & {msg_id for _, _, msg_id, _ in messages}

    async def _msg_ids(self, stream: str, subjects: list[str], since: datetime) -> set[str]:
        name = f"msg-id-lookup-{uuid.uuid4().hex}"
        config = ConsumerConfig(
            name=name,
            deliver_policy=DeliverPolicy.BY_START_TIME,
            opt_start_time=since,
            filter_subjects=subjects,
            headers_only=True,
            ack_policy=AckPolicy.NONE,
            mem_storage=True,
            inactive_threshold=60.0,  # gone by itself if this process dies reading
        )
        info = await self._js.add_consumer(stream, config, timeout=self._timeout)
        ids: set[str] = set()
        left = info.num_pending or 0
        sub = await self._js.pull_subscribe_bind(consumer=name, stream=stream)
        try:
            while left > 0:
                found = await sub.fetch(min(left, LOOKUP_BATCH), timeout=self._timeout)
                ids.update((msg.headers or {}).get("Nats-Msg-Id", "") for msg in found)
                left = found[-1].metadata.num_pending if found else 0
        finally:
            await sub.unsubscribe()
            with contextlib.suppress(Exception):  # it expires by itself
                await self._js.delete_consumer(stream, name)
        return ids
