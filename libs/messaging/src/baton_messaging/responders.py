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
connection directly (`_Serving`): FastStream's per-message pipeline (context, middlewares,
dependency injection, response publisher) cost about 200 us of CPU per request against 16 us
for the same decode, handler call and reply (measured, 2026-11-24), on every hop of a chat
turn or a transition. What the pipeline gave is kept: the request's W3C trace context is
continued in a `<subject> process` span, and no per-message log lines are written.
"""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from faststream.nats import NatsBroker, NatsRouter
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from opentelemetry import propagate, trace

from baton_contracts import (
    Message,
    ReplyError,
    ReplyOk,
)
from baton_messaging.caller_clock import arrived, stamp, stamp_arrivals
from baton_messaging.handling import (
    Handler,
    RequestT,
    as_reply,
    outcome,
    reply_json,
    run_handler,
    stopped_reply,
)
from baton_messaging.requests import record_error, span_attributes, tracing_on
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS

# The name it had before the module was renamed (`responder`, also a function the package
# exports lazily): what operators filter their logs on stays the same.
logger = logging.getLogger("baton_messaging.responder")
_TRACER = trace.get_tracer("baton_messaging.responder")  # a proxy: follows the provider set later


DEFAULT_CONCURRENCY = 256
"""Requests one responder handles at once; more wait in the subscription's queue. A handler
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
) -> Any:
    """Serve `model` requests with `handler` in queue group `queue`; returns the subscriber.

    When the broker stops, requests still being handled after `stop_grace_seconds` are
    cancelled and answered `unavailable`.
    """
    if not queue:
        raise ValueError("queue must name a queue group, so that replicas share requests")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if not stop_grace_seconds >= 0:
        raise ValueError(f"stop_grace_seconds must be 0 or more, got {stop_grace_seconds}")

    async def on_request(request: Any) -> ReplyOk | ReplyError:
        return as_reply(model, await run_handler(model, handler, request))

    # AsyncAPI documents the body's schema from this annotation.
    on_request.__annotations__["request"] = model
    on_request.__name__ = getattr(handler, "__name__", model.__name__)
    return declare(
        broker,
        model,
        on_request,
        _Serving(broker, model, handler, queue, concurrency, stop_grace_seconds),
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


class _Serving:
    """One responder's subscription on the broker's nats-py connection, `concurrency` requests
    at a time (the rest wait in the subscription's pending queue)."""

    def __init__(
        self,
        broker: NatsBroker,
        model: type[RequestT],
        handler: Handler[RequestT],
        queue: str,
        concurrency: int,
        grace: float,
    ) -> None:
        self._broker, self._model, self._handler = broker, model, handler
        self._queue, self._concurrency, self._grace = queue, concurrency, grace
        self._subject = model.subject.pattern
        self._sub: Subscription | None = None
        self._slots = asyncio.Semaphore(concurrency)
        self._in_flight: set[asyncio.Task[None]] = set()
        self._stopping = False

    async def start(self) -> None:
        """Subscribe in the queue group (the broker is connected when it starts subscribers)."""
        if self._sub is None:
            # A fresh one: a broker started again may run on another event loop.
            self._slots = asyncio.Semaphore(self._concurrency)
            self._stopping = False
            self._sub = await self._broker.connection.subscribe(
                self._subject, queue=self._queue, cb=self._receive
            )
            stamp_arrivals(self._sub)  # a request's wait for a slot is the caller's time too

    async def stop(self) -> None:
        """Stop taking requests, let the ones being handled finish for up to the grace period,
        then cancel the rest: each of their callers is answered `unavailable` at once."""
        sub, self._sub = self._sub, None
        self._stopping = True
        self._slots.release()  # wakes a request waiting for a slot: `_receive` refuses it
        # Drained, not unsubscribed (which drops what is queued): nothing new arrives, and each
        # request already queued here reaches `_receive`, which answers it `unavailable`.
        await _drain(sub, self._subject)
        if not self._in_flight:
            return
        _, late = await asyncio.wait(set(self._in_flight), timeout=self._grace)
        if late:
            logger.warning(
                "%s: %d request(s) still running %gs after the stop began; cancelling them",
                self._subject,
                len(late),
                self._grace,
            )
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)

    async def _receive(self, msg: Msg) -> None:
        # nats-py awaits this callback before handing over the next message: waiting for a slot
        # here is the backpressure, and the request itself runs in a task of its own.
        stamp(msg)  # one that came before `stamp_arrivals`: from now
        if not self._stopping:
            await self._slots.acquire()
        if self._stopping:  # still queued when the stop began: another replica may answer it
            await self._answer_stopped(msg)
            return
        task = asyncio.create_task(self._serve(msg))
        self._in_flight.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        self._slots.release()

    async def _serve(self, msg: Msg) -> None:
        # This task's own context: the handler reads the caller's clock, counted from the
        # request's arrival, its wait for a slot included.
        arrived(msg.headers, msg)
        parent = propagate.extract(msg.headers) if msg.headers else None
        # No trace came in and none is kept: the span would be a no-op (`tracing_on`).
        span = (
            _TRACER.start_as_current_span(
                f"{msg.subject} process",
                context=parent,
                kind=trace.SpanKind.CONSUMER,
                attributes=span_attributes(msg.subject),
            )
            if parent is not None or tracing_on()
            else contextlib.nullcontext()
        )
        try:
            try:
                with span as current:
                    result = await outcome(self._model, self._handler, msg.data)
                    if current is not None and isinstance(result, ReplyError):
                        record_error(current, result.error.code, result.error.message)
            except asyncio.CancelledError:  # the responder stopped before the handler was done
                await self._answer_stopped(msg)
                raise
            if msg.reply:
                connection = self._broker.connection
                reply = reply_json(self._model, result, connection.max_payload)
                await connection.publish(msg.reply, reply)
        except Exception:  # the reply could not be sent (connection gone): the caller times out
            logger.warning("responder for %s could not answer", self._subject, exc_info=True)

    async def _answer_stopped(self, msg: Msg) -> None:
        """Tell the caller this replica stopped before answering (nothing was done)."""
        if not msg.reply:
            return
        try:
            stopped = reply_json(self._model, stopped_reply(self._model))
            await self._broker.connection.publish(msg.reply, stopped)
        except Exception:  # the connection is gone: the caller times out
            logger.warning("responder for %s could not answer", self._subject, exc_info=True)


async def unsubscribe(sub: Subscription | None, subject: str) -> None:
    """Stop a subscription; on a closed connection there is nothing left to stop."""
    if sub is None:
        return
    try:
        await sub.unsubscribe()
    except Exception:  # the connection is already closed: nothing more arrives anyway
        logger.debug("unsubscribing %s failed", subject, exc_info=True)


async def _drain(sub: Subscription | None, subject: str) -> None:
    """Stop a subscription once what it has queued is handled; on a closed or draining
    connection, unsubscribe (nothing more arrives anyway)."""
    if sub is None:
        return
    try:
        await sub.drain()  # type: ignore[no-untyped-call]
    except Exception:
        logger.debug("draining %s failed", subject, exc_info=True)
        await unsubscribe(sub, subject)


def responder(
    broker: NatsBroker, model: type[RequestT], *, queue: str
) -> Callable[[Handler[RequestT]], Handler[RequestT]]:
    """Decorator form of `respond`; the decorated function stays callable as it was."""

    def register(handler: Handler[RequestT]) -> Handler[RequestT]:
        respond(broker, model, handler, queue=queue)
        return handler

    return register
