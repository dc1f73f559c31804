"""One model call per idempotency key across agent-runner replicas.

Within a process, `KeyLocks` makes a second call of a key wait for the first. Replicas share
only the database, so before calling the model a replica claims the key in it (`ClaimedLog`):
the one that claims calls the model; one that finds another replica's claim waits, asking
again now and then, until the other's result is recorded (and returns it), the claim is given
up or runs out (and takes the key itself), or its own caller's time is up (`unavailable`).
A claim runs out some seconds after its holder's call must have ended, so a replica that died
holding one delays a retry of that key, never blocks it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Protocol, TypeVar

from baton_agent_runner.service.ports import Claim, ClaimedLog, StoreUnavailable, V
from baton_contracts import ErrorCode, ErrorDetail, RemoteError

logger = logging.getLogger("baton.agent_runner")
T = TypeVar("T")


class Limited(Protocol):
    """Runs a store call within the caller's limit (`TaskRunner._store`, `TurnDeadlines.store`)."""

    def __call__(self, work: Awaitable[T], /) -> Awaitable[T]: ...


FIRST_PAUSE = 0.02
"""Seconds before asking again for a key another replica holds; doubled each time..."""
LONGEST_PAUSE = 0.5
"""...up to this: a waiting retry learns of the result within half a second, at about two
statements a second while it waits."""


async def look_up_or_claim(
    log: ClaimedLog[V],
    user_id: str,
    key: str,
    *,
    digest: str,
    now: datetime,
    deadline: datetime | None,
    time_left: Callable[[], float],
    held_after: float,
    store: Limited,
    waiting: Callable[[Coroutine[Any, Any, V | None]], Awaitable[V | None]] | None = None,
    caller_now: datetime | None = None,
) -> V | None:
    """The value recorded under the key for the request `digest`, or None once this process
    holds its claim; `KeyReused` when the key's value answered another request.

    Past the caller's `deadline` (by `caller_now`, the caller's clock, when known; else by
    `now`) the model is not called, but a value recorded in time is still the caller's. Else
    the claim is taken to last the call's time (`time_left()`, which refuses a caller that has
    given up) plus `held_after` seconds for the store calls around the model's; another
    replica's claim is waited for, as long as the call could take.
    `store` puts the caller's limit on each look; `waiting` runs the wait, when there is one
    (the task runner makes it cancellable), so the usual first look costs nothing more."""
    if deadline is not None and deadline <= (caller_now or now):
        recorded = await store(log.get(user_id, key, digest))
        if recorded is not None:
            return recorded
    left, started = time_left(), time.monotonic()

    def ask() -> Awaitable[Claim[V]]:
        # From this look on: a replica that takes the key over after a wait calls the model
        # for as long as one that took it at once, and its claim must last as long.
        waited = time.monotonic() - started
        return store(log.claim(user_id, key, waited + left + held_after, digest))

    try:
        found = await ask()
        if found.recorded is not None or found.mine:
            return found.recorded
        wait = recorded_or_claimed(ask, key, wait_for=left, first=found)
        return await (wait if waiting is None else waiting(wait))
    except BaseException:
        # A look cut off after the database took the claim (its answer came after the caller's
        # limit, or the caller was cancelled) left it held here until it ran out, and another
        # replica's retry of the key waited for it. Only this process's claim is given up.
        await _give_up(store(log.release(user_id, key)), key)
        raise


async def recorded_or_claimed(
    ask: Callable[[], Awaitable[Claim[V]]],
    key: str,
    wait_for: float,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
    first: Claim[V] | None = None,
) -> V | None:
    """The value recorded under the key, or None once this process holds its claim (the
    caller then calls the model). While another replica holds it, wait up to `wait_for`
    seconds; after that, `unavailable`: the caller may ask again later. `first` is what a look
    already made found."""
    pause, give_up = FIRST_PAUSE, clock() + wait_for
    told = False
    while True:
        found = first if first is not None else await ask()
        first = None
        if found.recorded is not None:
            return found.recorded
        if found.mine:
            return None
        left = give_up - clock()
        if left <= 0:
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE,
                f"another agent-runner replica is still answering {key!r}; ask again later",
            )
        if not told:  # one line per wait, not one per look
            logger.info(
                "%s: another replica is calling the model for this key (its claim runs until "
                "%s); waiting for its answer",
                key,
                found.held_until.isoformat() if found.held_until else "unknown",
            )
            told = True
        await sleep(min(pause, left))
        pause = min(pause * 2, LONGEST_PAUSE)


def reused(key: str) -> RemoteError:
    """`conflict` for a key sent again with another question (`KeyReused`): answered with the
    first question's answer, the new one would be dropped unseen."""
    message = (
        f"idempotency key {key!r} was used for another request (another agent, step, message "
        "or prompt); its recorded answer is not this request's: send it under a new key"
    )
    detail = ErrorDetail(field="idempotency_key", message="already used for another request")
    return RemoteError.of(ErrorCode.CONFLICT, message, [detail])


@asynccontextmanager
async def released_on_failure(
    log: ClaimedLog[V], user_id: str, key: str, timeout: float
) -> AsyncIterator[None]:
    """Give the claim up when the body fails (or is cancelled) before recording: a waiting
    replica then calls the model at once. A release that fails is only logged: the claim
    still runs out."""
    try:
        yield
    except BaseException:
        await _give_up(log.release(user_id, key), key, timeout)
        raise


async def _give_up(release: Awaitable[None], key: str, timeout: float | None = None) -> None:
    """Run `release` (this process's claim on the key dropped), shielded: a cancelled call
    must still let its key go. One that fails is only logged: the claim still runs out."""
    try:
        async with asyncio.timeout(timeout):
            await asyncio.shield(release)
    except Exception as exc:
        logger.warning("%s: could not give its claim up (%r); it runs out by itself", key, exc)


async def written(write: Callable[[], Awaitable[T]]) -> T:
    """`write()`, tried again while the store is unavailable, until it goes through or the
    caller's limit (`Limited`) cancels it.

    For what records a model's answer: failing at the first error (a connection cut
    mid-statement, a pool of connections a restarted server has dropped) threw the answer
    away, and the retry of the key paid the model again. Only for writes that may be repeated:
    upserts by key, and a put whose first recorded value wins."""
    pause = FIRST_PAUSE
    while True:
        try:
            return await write()
        except StoreUnavailable as exc:
            logger.info("a store write failed (%s); trying again", exc)
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)
