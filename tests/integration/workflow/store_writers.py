"""A workflow store's write lock held by a unit of work of the same process: what makes a
request's append wait for the database, in the tests of deadlines on writes."""

from __future__ import annotations

import asyncio

from baton_workflow.bootstrap import WorkflowApp


async def writers_held(app: WorkflowApp, seconds: float) -> asyncio.Task[None]:
    """Hold `app`'s store write lock for `seconds`; returns once it is held (the task ends when
    the lock is let go)."""
    taken = asyncio.Event()

    async def held() -> None:
        async with app.store.transaction():
            taken.set()
            await asyncio.sleep(seconds)

    task = asyncio.create_task(held())
    await taken.wait()
    return task
