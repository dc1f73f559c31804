"""The responder side of NATS request/reply: a typed handler becomes a queue-group subscriber.

Two spellings of the same thing:

    respond(broker, GetThing, get_thing, queue="workflow")

    @responder(broker, GetThing, queue="workflow")
    async def get_thing(query: GetThing) -> Thing: ...

The subscriber listens on `GetThing.subject.pattern` in queue group `queue` (so replicas share
the load, each request answered once), decodes the request with the contract model, runs the
handler and answers `ReplyOk` or `ReplyError` (`handling` says which, and how).

The subscriber is declared on the FastStream broker, so AsyncAPI documents it and the
broker's `start`/`stop` start and stop it, but requests are served on the broker's nats-py
connection directly (`serving.Serving`): FastStream's per-message pipeline (context,
middlewares, dependency injection, response publisher) cost about 200 us of CPU per request
against 16 us for the same decode, handler call and reply (measured, 2026-11-24), on every hop
of a chat turn or a transition. What the pipeline gave is kept: the request's W3C trace context is
continued in a `<subject> process` span, and no per-message log lines are written.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from faststream.nats import NatsBroker, NatsRouter

from baton_contracts import (
    Message,
    ReplyError,
    ReplyOk,
)
from baton_messaging.fair_slots import user_cap
from baton_messaging.handling import (
    Handler,
    RequestT,
    as_reply,
    run_handler,
)
from baton_messaging.serving import DEFAULT_MAX_WAITING, Limits, Serving
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS

DEFAULT_CONCURRENCY = 256
"""Requests one responder handles at once; more wait for a slot (`fair_slots`). A handler
mostly waits (on another service, a model, the database), so the cap is for memory and
backpressure, not CPU: 32 held a workflow replica to 32 chat turns at once however idle it
was, so 32 users waiting on a slow model made everyone else wait too. With 50 conversations
in the chat benchmark, going from 32 to 100 took 235 to 277 turns/s and 6.98 to 5.80 CPU ms
per turn (more requests per wake-up). FastStream's own default is one at a time."""


def respond(
    broker: NatsBroker,
    model: type[RequestT],
    handler: Handler[RequestT],
    *,
    queue: str,
    concurrency: int = DEFAULT_CONCURRENCY,
    stop_grace_seconds: float = DEFAULT_STOP_GRACE_SECONDS,
    max_user_share: float = 1.0,
    max_waiting: int = DEFAULT_MAX_WAITING,
) -> Any:
    """Serve `model` requests with `handler` in queue group `queue`; returns the subscriber.

    Up to `concurrency` requests run at once; a slot that frees goes to the waiting user
    (`user_id`) with the fewest running (`fair_slots`), and one user's take at most
    `max_user_share` of them. Up to `max_waiting` requests wait in the users' lines, the rest in
    nats-py's queue. When the broker stops, requests still being handled after
    `stop_grace_seconds` are cancelled and answered `unavailable`.
    """
    if not queue:
        raise ValueError("queue must name a queue group, so that replicas share requests")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if not stop_grace_seconds >= 0:
        raise ValueError(f"stop_grace_seconds must be 0 or more, got {stop_grace_seconds}")
    if max_waiting < 1:
        raise ValueError(f"max_waiting must be at least 1, got {max_waiting}")
    limits = Limits(
        concurrency, user_cap(concurrency, max_user_share), max_waiting, grace=stop_grace_seconds
    )

    async def on_request(request: Any) -> ReplyOk | ReplyError:
        return as_reply(model, await run_handler(model, handler, request))

    # AsyncAPI documents the body's schema from this annotation.
    on_request.__annotations__["request"] = model
    on_request.__name__ = getattr(handler, "__name__", model.__name__)
    return declare(
        broker,
        model,
        on_request,
        Serving(broker, model, handler, queue, limits),
        description=f"Request {model.__name__}, reply {model.reply_model.__name__} "
        f"wrapped in ReplyOk, or ReplyError. {model.__doc__ or ''}".strip(),
        queue=queue,
        max_workers=concurrency,
    )


class Served(Protocol):
    """What serves a declared subscriber on nats-py: the broker starts and stops it."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def declare(
    broker: NatsBroker,
    model: type[Message],
    documented: Callable[..., Awaitable[Any]],
    served: Served,
    *,
    description: str,
    **options: Any,
) -> Any:
    """A FastStream subscriber on `model`'s subject, so AsyncAPI documents `documented` and the
    broker starts and stops it, whose messages `served` takes on the nats-py connection."""
    router = NatsRouter()
    subscriber = router.subscriber(
        model.subject.pattern,
        title=f"{model.subject.pattern}:{model.__name__}",
        description=description,
        **options,
    )
    subscriber(documented)
    subscriber.start = served.start
    subscriber.stop = served.stop
    broker.include_router(router)
    _served_on(broker).append(served)
    return subscriber


def _served_on(broker: NatsBroker) -> list[Served]:
    served: list[Served] | None = getattr(broker, "_baton_served", None)
    if served is None:
        served = []
        setattr(broker, "_baton_served", served)  # noqa: B010 - a broker has no such field
    return served


async def stop_serving(broker: NatsBroker) -> None:
    """Stop every responder declared on `broker` now, as its `stop` would (no new requests;
    those in flight finish within their grace), and leave the connection open: a service then
    gets out what their handlers committed (its outbox) before the broker stops. The broker's
    own stop later finds them stopped."""
    await asyncio.gather(*(served.stop() for served in list(_served_on(broker))))


def responder(
    broker: NatsBroker, model: type[RequestT], *, queue: str
) -> Callable[[Handler[RequestT]], Handler[RequestT]]:
    """Decorator form of `respond`; the decorated function stays callable as it was."""

    def register(handler: Handler[RequestT]) -> Handler[RequestT]:
        respond(broker, model, handler, queue=queue)
        return handler

    return register
