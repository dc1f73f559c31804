"""`cancel_and_wait` ends a task whose cancel a library lost, where cancelling once and awaiting
it would wait for ever: on Python 3.11 `asyncio.wait_for` (nats-py's requests use it) drops a
cancel that comes as its future ends, and a loop that asks again then runs on."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from baton_messaging import cancel_and_wait

pytestmark = pytest.mark.timeout(30)  # a guard only: without the fix the stop never returns


async def _asking_in_a_loop(answers: list[asyncio.Future[None]]) -> None:
    """Ask, take a failed answer as "not yet", wait a little, ask again (a background check)."""
    loop = asyncio.get_running_loop()
    while True:
        answer = loop.create_future()
        answers.append(answer)
        with contextlib.suppress(LookupError):
            await asyncio.wait_for(answer, 60)
        await asyncio.sleep(0.01)


async def test_a_cancel_lost_as_the_answer_came_is_made_again() -> None:
    answers: list[asyncio.Future[None]] = []
    task = asyncio.create_task(_asking_in_a_loop(answers))
    await asyncio.sleep(0)  # the task's first step: it now waits for its first answer
    assert len(answers) == 1
    # The answer ("no responders") and the stop's cancel come in the same turn of the loop.
    answers[-1].set_exception(LookupError("no responders"))
    await cancel_and_wait([task], again_after=0.05)
    assert task.cancelled()


async def test_outcomes_stay_on_the_tasks() -> None:
    async def fails() -> None:
        raise ValueError("boom")

    async def sleeps() -> None:
        await asyncio.sleep(60)

    failed = asyncio.create_task(fails())
    await asyncio.sleep(0)
    sleeping = asyncio.create_task(sleeps())
    await cancel_and_wait([failed, sleeping])
    assert sleeping.cancelled()
    with pytest.raises(ValueError, match="boom"):
        await failed


async def test_nothing_to_cancel_returns_at_once() -> None:
    await cancel_and_wait([])
