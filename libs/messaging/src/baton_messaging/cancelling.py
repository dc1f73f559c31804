"""Cancel background tasks and wait for them to end, also when a library lost the cancel.

On Python 3.11 `asyncio.wait_for` returns its future's outcome and drops the cancel when the
future ends at the moment the cancel comes (fixed in 3.12). nats-py waits for every request's
answer with it, so a task asking in a loop (ask, log the failure, sleep, ask again) may be
cancelled, take the "no responders" answer instead, and go on asking: a stop that then awaits
it waits for ever. `cancel_and_wait` cancels again whatever is still running a moment later.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

AGAIN_AFTER = 0.5
"""Seconds a cancelled task has to end before it is cancelled again."""


async def cancel_and_wait(
    tasks: Iterable[asyncio.Future[Any]], again_after: float = AGAIN_AFTER
) -> None:
    """Cancel `tasks` and return once each has ended, cancelling again every `again_after`
    seconds those still running. Their outcomes stay on them (`await task` gives each one)."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=again_after)
