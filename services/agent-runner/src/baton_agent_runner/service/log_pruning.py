"""Forgetting old idempotency records: the reply log and the task log keep a row per turn and
per DAG step, read again only by a retry under the same key. Retries come within minutes (a
workflow-service restart, a client's retry), so a record older than the retention serves
nobody; without pruning, both tables would grow by a row per turn and per step for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from baton_agent_runner.service.ports import PrunableLog, StoreUnavailable
from baton_messaging.cancelling import cancel_and_wait

logger = logging.getLogger("baton.agent_runner")

PRUNE_EVERY_AT_MOST = 3600.0
"""Seconds between two prunes when the retention is a day or more."""
PRUNE_EVERY_AT_LEAST = 1.0
"""However short the retention, prunes do not follow each other in a busy loop."""


def prune_interval(retention: timedelta) -> float:
    """Seconds between two prunes: hourly, or a 24th of the retention when that is shorter,
    so that a record outlives the retention by at most a 24th of it; never under a second."""
    every = min(PRUNE_EVERY_AT_MOST, retention.total_seconds() / 24)
    return max(PRUNE_EVERY_AT_LEAST, every)


@dataclass
class LogPruner:
    """Deletes the records older than `retention` from each log: once right after `start`,
    then every `every` seconds, in the background, until `stop`.

    Every replica runs one, uncoordinated: replicas pruning at once delete the same old rows
    (each row is deleted once, and a record that old is one no retry asks for).
    """

    logs: Mapping[str, PrunableLog]
    retention: timedelta
    every: float
    now: Callable[[], datetime]
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    def start(self) -> None:
        """Begin pruning in the background (a first prune of a long backlog holds up nothing)."""
        if self._task is None and self.logs:
            self._task = asyncio.create_task(self._loop(), name="idempotency-log-pruner")

    async def stop(self) -> None:
        """Cancel the pruning, mid-batch if need be: a batch cut off deletes nothing."""
        task, self._task = self._task, None
        if task is None:
            return
        await cancel_and_wait([task])  # it prunes in a loop: a lost cancel is repeated
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def prune(self) -> dict[str, int]:
        """One round: each log's records older than the retention; how many went, by log.

        A database outage is one warning line (the logs share the database, so the others are
        not tried); any other failure is logged with its traceback and the next log is tried.
        """
        before = self.now() - self.retention
        removed: dict[str, int] = {}
        for name, log in self.logs.items():
            try:
                removed[name] = await log.prune(before)
            except StoreUnavailable as exc:
                logger.warning(
                    "could not delete idempotency records older than %s: the database is "
                    "unavailable (%s); trying again in %.0f s",
                    _hours(self.retention),
                    _first_line(exc),
                    self.every,
                )
                break
            except Exception:
                logger.exception(
                    "could not delete %s older than %s; trying again in %.0f s",
                    name,
                    _hours(self.retention),
                    self.every,
                )
        if any(removed.values()):
            logger.info(
                "deleted idempotency records older than %s (recorded before %s): %s",
                _hours(self.retention),
                before.isoformat(timespec="seconds"),
                ", ".join(f"{name} {n}" for name, n in removed.items() if n),
            )
        return removed

    async def _loop(self) -> None:
        while True:
            try:
                await self.prune()
            except Exception:  # `prune` logs its logs' failures; this keeps the loop alive
                logger.exception("pruning the idempotency logs failed; trying again later")
            await asyncio.sleep(self.every)


def _hours(retention: timedelta) -> str:
    return f"{retention.total_seconds() / 3600:g} h"


def _first_line(exc: BaseException) -> str:
    # SQLAlchemy's messages end with a "(Background on this error at: ...)" line.
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__
