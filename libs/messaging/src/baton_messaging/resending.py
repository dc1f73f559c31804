"""Requests sent again: while no replica takes them, or the one that took them may be gone.

A request/reply tells the requester nothing when the replica handling it is killed (SIGKILL,
an out-of-memory kill, a lost host): the requester only waits out its timeout. For a message
whose owner answers a repeat from the same work (an idempotency key, a chat turn's
`client_message_id`), sending it again lets the restarted replica, or another one, answer it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from faststream.nats import NatsBroker
from nats.aio.client import Client
from pydantic import BaseModel

from baton_contracts import Command, Message, Query, RemoteError
from baton_messaging.requests import replica_gone, request, request_json

T = TypeVar("T")

RESEND_LONGEST = 60.0
"""The longest wait before an unanswered request is sent again (`resend_after` doubles)."""

LAST_TRY_SECONDS = 0.25
"""The least time a request sent again while no replica takes it is given. One sent with less,
on a loaded host, could time out before NATS says that nobody took it, and the caller would be
told of a missed reply ("no reply within 0s") instead of the error before it."""


async def request_again_while_gone(
    client: NatsBroker | Client,
    message: Query | Command | Message,
    *,
    timeout: float,
    retry_for: float,
    pause: float = 0.5,
    resend_after: float | None = None,
    again_also: Callable[[RemoteError], bool] | None = None,
    gone: Callable[[RemoteError], bool] = replica_gone,
) -> BaseModel:
    """`request`, sent again every `pause` seconds while no replica takes it or the one that
    took it stopped before answering (`replica_gone`: nothing was done), or its answer is an
    error `again_also` says to ask again for (an owner whose own database is down), for up to
    `retry_for` seconds from the first such answer (a replica may stop long after it took the
    request); `timeout` bounds the whole wait, every attempt included.

    With `resend_after`, a request still unanswered after that many seconds is sent again
    too, then after twice as long each time (up to `RESEND_LONGEST`), the earlier sends still
    waited for: the replica that took it may have died (SIGKILL tells the requester nothing,
    and a request/reply has no other sign of it) or its answer been lost while NATS restarted.
    Only for a message with an idempotency key whose owner answers a repeat from the same work
    (the agent-runner waits for the call in flight, or returns its recorded result).

    `gone` says which errors mean that nothing was done (`replica_gone`); `no_responders`
    for a message without an idempotency key, which a replica cut off mid-way may have done
    part of."""

    async def send(left: float) -> BaseModel:
        return await request(client, message, timeout=left)

    again = _either(gone, again_also)
    return await _again_while_gone(send, timeout, retry_for, pause, resend_after, again)


async def request_json_again_while_gone(
    client: NatsBroker | Client,
    message: Query | Command | Message,
    *,
    timeout: float,
    retry_for: float,
    pause: float = 0.5,
    resend_after: float | None = None,
    gone: Callable[[RemoteError], bool] = replica_gone,
) -> bytes:
    """`request_again_while_gone`, answered as `request_json` answers: the reply's JSON as
    its owner encoded it, for an edge that sends it on unchanged."""

    async def send(left: float) -> bytes:
        return await request_json(client, message, timeout=left)

    return await _again_while_gone(send, timeout, retry_for, pause, resend_after, gone)


def _either(
    gone: Callable[[RemoteError], bool], also: Callable[[RemoteError], bool] | None
) -> Callable[[RemoteError], bool]:
    if also is None:
        return gone
    return lambda exc: gone(exc) or also(exc)


async def _again_while_gone(
    send: Callable[[float], Awaitable[T]],
    timeout: float,
    retry_for: float,
    pause: float,
    resend_after: float | None,
    again: Callable[[RemoteError], bool],
) -> T:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    retry_until: float | None = None
    while True:
        try:
            return await _first_answer(send, end, resend_after)
        except RemoteError as exc:
            if not again(exc):
                raise
            now = loop.time()
            if retry_until is None:
                retry_until = now + retry_for
            if now + pause >= retry_until or now + pause + LAST_TRY_SECONDS > end:
                raise
        await asyncio.sleep(pause)


async def _first_answer(
    send: Callable[[float], Awaitable[T]], end: float, resend_after: float | None
) -> T:
    """The first answer of `send` (given the seconds left) by the loop time `end`, sent again
    each time `resend_after` seconds, doubling, pass without one.

    An error is the caller's only once no send is left in flight: a repeat queued behind a
    call that failed (the same key, in the same replica or another) may still run and record
    its answer, and a caller told of the failure first would have reported as not done what
    then was. The first send's error is the one raised."""
    loop = asyncio.get_running_loop()
    if resend_after is None:
        return await send(max(end - loop.time(), 0.001))
    sent: list[asyncio.Task[T]] = []
    wait, next_send = resend_after, loop.time()
    try:
        while True:
            now = loop.time()
            sending = now < end or not sent
            if sending and now >= next_send:
                sent.append(asyncio.ensure_future(send(max(end - now, 0.001))))
                next_send, wait = now + wait, min(wait * 2, RESEND_LONGEST)
            pending = [task for task in sent if not task.done()]
            if pending:
                until_next = max(next_send - loop.time(), 0.0) if now < end else None
                await asyncio.wait(pending, timeout=until_next, return_when=asyncio.FIRST_COMPLETED)
            answered = next((t for t in sent if t.done() and t.exception() is None), None)
            if answered is not None:
                return answered.result()
            if all(task.done() for task in sent):
                return sent[0].result()  # every send failed: the first one's error
    finally:
        for task in sent:
            task.cancel()
