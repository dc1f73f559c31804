"""How a responder takes its requests off the broker's nats-py connection: up to `concurrency`
at a time, the slots shared fairly between users (`fair_slots`), the rest held waiting within
bounds, and on a stop every request either answered or told `unavailable`."""

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Generic

from faststream.nats import NatsBroker
from nats.aio.msg import Msg
from nats.aio.subscription import DEFAULT_SUB_PENDING_BYTES_LIMIT, Subscription
from opentelemetry import propagate, trace

from baton_contracts import ReplyError
from baton_messaging.caller_clock import arrived, stamp, stamp_arrivals
from baton_messaging.fair_slots import FairSlots
from baton_messaging.handling import (
    Handler,
    RequestT,
    decode,
    reply_json,
    run_handler,
    stopped_reply,
)
from baton_messaging.requests import record_error, span_attributes, tracing_on

# The name it had before the module was renamed (`responder`, also a function the package
# exports lazily): what operators filter their logs on stays the same.
logger = logging.getLogger("baton_messaging.responder")
_TRACER = trace.get_tracer("baton_messaging.responder")  # a proxy: follows the provider set later


DEFAULT_MAX_WAITING = 10_000
"""Requests one responder holds waiting for a slot, in its users' lines (`fair_slots`); past
that (or `WAITING_BYTES`) it takes no more off the connection, and the rest wait in nats-py's
queue, first come first served, as all did before. Enough for a DAG run's fan-out of thousands
of steps to wait where another user's request can pass it."""

WAITING_BYTES = 64 * 1024 * 1024
"""The bodies of the requests waiting in the users' lines, at most; nats-py's queue behind them
holds as much again (`pending_bytes_limit`), so a responder holds no more waiting requests than
nats-py's default limit (128 MiB) held alone."""


@dataclass(frozen=True)
class Limits:
    """How many requests one responder runs, and holds waiting; its stop's grace."""

    concurrency: int
    user_cap: int
    max_waiting: int
    grace: float


class Serving(Generic[RequestT]):
    """One responder's subscription on the broker's nats-py connection: `concurrency` requests
    at a time, shared fairly between users; the rest wait in their users' lines (`FairSlots`),
    and past `max_waiting` of them in the subscription's pending queue."""

    def __init__(
        self,
        broker: NatsBroker,
        model: type[RequestT],
        handler: Handler[RequestT],
        queue: str,
        limits: Limits,
    ) -> None:
        self._broker, self._model, self._handler = broker, model, handler
        self._queue, self._limits = queue, limits
        self._subject = model.subject.pattern
        self._sub: Subscription | None = None
        self._slots: FairSlots[Msg] = FairSlots(limits.concurrency, limits.user_cap)
        self._room = asyncio.Event()
        self._in_flight: dict[asyncio.Task[None], str] = {}
        self._stopping = False

    async def start(self) -> None:
        """Subscribe in the queue group (the broker is connected when it starts subscribers)."""
        if self._sub is None:
            # Fresh ones: a broker started again may run on another event loop.
            self._slots = FairSlots(self._limits.concurrency, self._limits.user_cap)
            self._room = asyncio.Event()
            self._stopping = False
            self._sub = await self._broker.connection.subscribe(
                self._subject,
                queue=self._queue,
                cb=self._receive,
                pending_bytes_limit=DEFAULT_SUB_PENDING_BYTES_LIMIT - WAITING_BYTES,
            )
            stamp_arrivals(self._sub)  # a request's wait for a slot is the caller's time too

    async def stop(self) -> None:
        """Stop taking requests, let the ones being handled finish for up to the grace period,
        then cancel the rest: each of their callers is answered `unavailable` at once."""
        sub, self._sub = self._sub, None
        self._stopping = True
        self._room.set()  # wakes `_receive` waiting for room in the lines
        for msg in self._slots.clear():  # waiting for a slot: another replica may answer it
            await self._answer_stopped(msg)
        # Drained, not unsubscribed (which drops what is queued): nothing new arrives, and each
        # request already queued here reaches `_receive`, which answers it `unavailable`.
        await _drain(sub, self._subject)
        if not self._in_flight:
            return
        grace = self._limits.grace
        _, late = await asyncio.wait(set(self._in_flight), timeout=grace)
        if late:
            logger.warning(
                "%s: %d request(s) still running %gs after the stop began; cancelling them",
                self._subject,
                len(late),
                grace,
            )
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)

    async def _receive(self, msg: Msg) -> None:
        # nats-py awaits this callback before handing over the next message: waiting for room
        # in the lines here is the backpressure, and each request runs in a task of its own.
        stamp(msg)  # one that came before `stamp_arrivals`: from now
        if self._stopping:  # still queued when the stop began: another replica may answer it
            await self._answer_stopped(msg)
            return
        request = decode(self._model, msg.data)
        user: str = getattr(request, "user_id", "")
        slots = self._slots
        if slots.take(user):
            self._start(msg, request, user)
            return
        slots.wait(user, msg, len(msg.data))
        # Decoded again when its turn comes: a line of thousands holds bodies, not models.
        self._start_waiting()
        if slots.waiting >= self._limits.max_waiting or slots.waiting_bytes >= WAITING_BYTES:
            self._room.clear()
            await self._room.wait()

    def _start(self, msg: Msg, request: RequestT | ReplyError, user: str) -> None:
        task = asyncio.create_task(self._serve(msg, request))
        self._in_flight[task] = user
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._slots.release(self._in_flight.pop(task))
        if self._slots.waiting:
            self._start_waiting()

    def _start_waiting(self) -> None:
        """Start the waiting requests whose turn it is, while slots are free."""
        if self._stopping:
            return
        slots = self._slots
        while (turn := slots.next()) is not None:
            user, msg = turn
            self._start(msg, decode(self._model, msg.data), user)
        if slots.waiting < self._limits.max_waiting and slots.waiting_bytes < WAITING_BYTES:
            self._room.set()

    async def _serve(self, msg: Msg, request: RequestT | ReplyError) -> None:
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
                    result = (
                        request
                        if isinstance(request, ReplyError)
                        else await run_handler(self._model, self._handler, request)
                    )
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
