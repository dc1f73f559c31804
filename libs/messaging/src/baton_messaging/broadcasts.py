"""Notices to every replica of a service: `broadcast` sends one, `listen` hears them.

    await broadcast(broker, CancelTask(...))

    listen(broker, CancelTask, on_cancel)   # every replica runs on_cancel for every notice

A `Broadcast` goes out on core NATS to the subscribers of its subject without a queue group, so
each replica of the owner hears it; nobody answers and nothing is stored. It is for what one
replica holds in memory (a call in flight, a run it drives) when the sender cannot know which.
A notice sent while no replica listens is lost, so it may only hurry up what a deadline, a
lease or a timer brings about anyway.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from faststream.nats import NatsBroker
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from opentelemetry import propagate
from pydantic import ValidationError

from baton_contracts import Broadcast
from baton_messaging.responders import declare
from baton_messaging.serving import unsubscribe

NoticeT = TypeVar("NoticeT", bound=Broadcast)

logger = logging.getLogger(__name__)


async def broadcast(client: NatsBroker | Client, notice: Broadcast) -> None:
    """Publish `notice` to every replica of its owner (no reply is awaited)."""
    nc = client.connection if isinstance(client, NatsBroker) else client
    headers: dict[str, Any] = {}
    propagate.inject(headers)
    await nc.publish(notice.wire_subject(), notice.to_bytes(), headers=headers or None)


def listen(
    broker: NatsBroker, model: type[NoticeT], handler: Callable[[NoticeT], Awaitable[None]]
) -> Any:
    """Run `handler` in this replica for every `model` notice; returns the subscriber.

    Notices are handled one after another, as they arrive: a handler is meant to be quick
    (cancel a task, wake a loop). One that does not validate, or a handler that raises, is
    logged and dropped.
    """

    async def on_notice(notice: Any) -> None:  # documented for AsyncAPI; `_Listening` serves
        await handler(notice)

    on_notice.__annotations__["notice"] = model
    on_notice.__name__ = getattr(handler, "__name__", model.__name__)
    return declare(
        broker,
        model,
        on_notice,
        _Listening(broker, model, handler),
        description=f"Broadcast {model.__name__} to every replica, no reply. "
        f"{model.__doc__ or ''}".strip(),
    )


class _Listening:
    """One notice subscription on the broker's nats-py connection, without a queue group."""

    def __init__(
        self,
        broker: NatsBroker,
        model: type[NoticeT],
        handler: Callable[[NoticeT], Awaitable[None]],
    ) -> None:
        self._broker, self._model = broker, model
        self._handler = cast(Callable[[Broadcast], Awaitable[None]], handler)
        self._sub: Subscription | None = None

    async def start(self) -> None:
        if self._sub is None:
            self._sub = await self._broker.connection.subscribe(
                self._model.subject.pattern, cb=self._receive
            )

    async def stop(self) -> None:
        sub, self._sub = self._sub, None
        await unsubscribe(sub, self._model.subject.pattern)

    async def _receive(self, msg: Msg) -> None:
        try:
            notice = self._model.model_validate_json(msg.data)
        except ValidationError as exc:
            logger.warning(
                "dropped a malformed %s on %s: %s", self._model.__name__, msg.subject, exc
            )
            return
        try:
            await self._handler(notice)
        except Exception:
            logger.exception("handling %s on %s failed", self._model.__name__, msg.subject)
