"""How a replica waits for a key another replica holds: the looks, their spacing, and the
claim it takes over at the end of a wait."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from baton_agent_runner.service import claims
from baton_agent_runner.service.ports import Claim
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import TaskResult

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
RESULT = TaskResult(output="done", agent="default", model="scripted")


class HeldLog:
    """A log whose key another replica holds for `held` looks, then records or frees."""

    def __init__(self, held: int, then: Claim[TaskResult]) -> None:
        self.looks: list[float] = []  # the seconds each look claims for
        self.held, self.then = held, then
        self.gets = 0

    async def get(self, user_id: str, key: str, digest: str | None = None) -> TaskResult | None:
        self.gets += 1
        return RESULT if self.then.recorded else None

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[TaskResult]:
        self.looks.append(seconds)
        if len(self.looks) <= self.held:
            return Claim(held_until=NOW + timedelta(minutes=1))
        return self.then

    async def release(self, user_id: str, key: str) -> None:
        pass


async def _as_is(work: object) -> object:
    return await work  # type: ignore[misc]


async def _look(log: HeldLog, deadline: datetime | None = None, left: float = 30.0) -> object:
    def time_left() -> float:
        if deadline is not None and deadline <= NOW:
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "the deadline has passed")
        return left

    return await claims.look_up_or_claim(
        log, "alice", "k", digest="asked", now=NOW, deadline=deadline, time_left=time_left,
        held_after=8.0, store=_as_is,  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_wait_between_looks_grows_to_half_a_second() -> None:
    pauses: list[float] = []
    looks = iter([Claim(held_until=NOW)] * 8 + [Claim(recorded=RESULT)])

    async def ask() -> Claim[TaskResult]:
        return next(looks)

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    found = asyncio.run(claims.recorded_or_claimed(ask, "k", wait_for=60.0, sleep=sleep))
    assert found == RESULT
    assert pauses == [0.02, 0.04, 0.08, 0.16, 0.32, 0.5, 0.5, 0.5]


async def test_a_claim_taken_over_after_a_wait_lasts_as_long_as_one_taken_at_once() -> None:
    log = HeldLog(held=2, then=Claim(mine=True))
    assert await _look(log) is None  # this process holds the key now
    first, last = log.looks[0], log.looks[-1]
    assert 0 <= first - (30 + 8) < 0.01
    assert last - first >= 0.06  # the two pauses it waited (20 + 40 ms)


async def test_the_recorded_value_ends_the_wait() -> None:
    log = HeldLog(held=1, then=Claim(recorded=RESULT))
    assert await _look(log) == RESULT
    assert len(log.looks) == 2


async def test_past_the_deadline_a_recorded_value_is_returned_and_nothing_is_claimed() -> None:
    log = HeldLog(held=0, then=Claim(recorded=RESULT))
    assert await _look(log, deadline=NOW) == RESULT
    assert (log.gets, log.looks) == (1, [])
    unrecorded = HeldLog(held=0, then=Claim(mine=True))
    with pytest.raises(RemoteError, match="deadline"):
        await _look(unrecorded, deadline=NOW - timedelta(seconds=1))
    assert unrecorded.looks == []  # no claim for a caller that has given up


async def test_a_wait_longer_than_the_callers_time_is_unavailable() -> None:
    log = HeldLog(held=100, then=Claim(mine=True))
    with pytest.raises(RemoteError) as caught:
        await _look(log, left=0.1)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "another agent-runner replica is still answering 'k'" in caught.value.body.message
