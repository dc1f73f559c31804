"""`DeliveryTap`: one subscription's messages straight from nats-py's parser, as raw bytes.

The live feed receives every event the gateway fans out. nats-py's path for a message (a
`Msg` object, header parsing, the subscription's queue and a callback task) cost about as much
CPU as the rest of a delivery to a socket, so the feed's deliveries skip it.

This relies on nats-py internals (`Client._process_msg` and `Subscription._id`, as of
nats-py 2.16): a nats-py upgrade must pass `tests/unit/notifier/test_live_sending.py` and the
live integration tests.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from nats.aio.client import Client
from nats.aio.subscription import Subscription

log = logging.getLogger(__name__)

ProcessMsg = Callable[..., Awaitable[None]]  # (sid, subject, reply, data, headers or None)
Delivery = Callable[[str, bytes], None]
_STATUS_LINE = b"NATS/1.0 "  # headers of a status message (heartbeat, flow control) start so


class DeliveryTap:
    """Hands a subscription's messages, as raw reply and body, to a function.

    It wraps the client's `_process_msg`, which nats-py's parser calls for every message. A
    message with a status line (a heartbeat) and every other subscription's go on as before,
    so the subscription's callback still sees those; without the tap, it would see everything.
    """

    def __init__(self, nc: Client) -> None:
        self._nc = nc
        self._next: ProcessMsg = nc._process_msg
        self._routes: dict[int, Delivery] = {}
        nc._process_msg = self._process_msg  # type: ignore[method-assign]

    @classmethod
    def of(cls, nc: Client) -> DeliveryTap:
        """The client's tap, installed on first use."""
        tap = getattr(nc, "_baton_delivery_tap", None)
        if not isinstance(tap, DeliveryTap):
            tap = cls(nc)
            setattr(nc, "_baton_delivery_tap", tap)  # noqa: B010 - a client has no such field
        return tap

    def route(self, sub: Subscription, deliver: Delivery) -> None:
        """Hand the messages of `sub` to `deliver`."""
        self._routes[sub._id] = deliver  # the sid nats-py's parser reports

    def unroute(self, sub: Subscription) -> None:
        """Let the messages of `sub` take nats-py's path again."""
        self._routes.pop(sub._id, None)

    async def _process_msg(
        self, sid: int, subject: bytes, reply: bytes, data: bytes, headers: bytes | None
    ) -> None:
        deliver = self._routes.get(sid)
        if deliver is None or (headers is not None and headers.startswith(_STATUS_LINE)):
            await self._next(sid, subject, reply, data, headers)
            return
        stats = self._nc.stats
        stats["in_msgs"] += 1
        stats["in_bytes"] += len(data)
        try:
            deliver(reply.decode(), data)
        except Exception:  # never into the client's read loop, which would drop the connection
            log.exception("live feed: a delivery failed")
