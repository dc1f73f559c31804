"""A turn's time limits: its caller's deadline, the model's `timeout`, each store call's own."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from baton_agent_runner.service.ports import StoreUnavailable
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import RunAgent

logger = logging.getLogger("baton.agent_runner")
T = TypeVar("T")


@dataclass(frozen=True)
class TurnDeadlines:
    """The limits of `AgentRunner`'s fields of the same names."""

    timeout: float
    store_timeout: float
    now: Callable[[], datetime]
    caller_now: Callable[[], datetime | None]

    async def store(
        self, work: Awaitable[T], by: RunAgent | None = None, name: str | None = None
    ) -> T:
        """Store calls get their own deadline; the model's is `timeout`. A write `by` a turn
        with a deadline also ends at that deadline, when it comes first. `name` is the store
        a call uses, for the caller's error (None: more than one)."""
        limit, cut_by_deadline = self.store_timeout, False
        if by is not None and by.deadline is not None:
            try:
                left = self.time_left(by)
            except RemoteError:
                if asyncio.iscoroutine(work):
                    work.close()  # never started: nothing written
                raise
            cut_by_deadline = left < limit
            limit = min(limit, left)
        try:
            # A deadline on this task, not `wait_for`'s extra task per call.
            async with asyncio.timeout(limit):
                return await work
        except TimeoutError as exc:
            if cut_by_deadline:
                assert by is not None
                logger.warning(
                    "turn %s: its caller's deadline passed during a write; what was written "
                    "is keyed by the turn, so the same key asked again writes nothing twice",
                    by.idempotency_key,
                )
                raise RemoteError.of(
                    ErrorCode.UNAVAILABLE,
                    f"the turn's deadline {by.deadline} passed while it was being recorded",
                ) from exc
            raise StoreUnavailable(
                f"no answer within {self.store_timeout:g}s", name, self.store_timeout
            ) from exc

    def deadline_clock(self) -> datetime:
        """Now, on the clock the deadline was set by: the caller's when known."""
        return self.caller_now() or self.now()

    def time_left(self, cmd: RunAgent, now: datetime | None = None) -> float:
        """Seconds until the caller stops waiting (`timeout` without a deadline); past it, the
        turn ends here as `unavailable`."""
        if cmd.deadline is None:
            return self.timeout
        left = (cmd.deadline - (now or self.deadline_clock())).total_seconds()
        if left <= 0:
            logger.warning(
                "turn %s: its caller stopped waiting %.3fs ago; nothing is recorded",
                cmd.idempotency_key,
                -left,
            )
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE,
                # Quoted by the workflow, which says itself what it recorded (`turn_failures`).
                f"its deadline {cmd.deadline.isoformat()} passed before it could be answered",
            )
        return left
