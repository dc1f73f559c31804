"""When `baton up` kills a service that stopped answering (only its own silence counts), and how
the restart rule counts those kills."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from baton_cli.errors import UsageError
from baton_cli.health import Answer
from baton_cli.liveness import LIVENESS_ENV, MISSES, Liveness, Silence
from baton_cli.restarts import Ending, RestartPolicy, ServiceFailed, keep_alive

WATCH = Liveness(timeout=30.0)


def probes(
    silence: Silence, answers: list[Answer], every: float, start: float = 0.0
) -> list[float]:
    """Record `answers` one probe `every` seconds apart; the silences that called for a kill."""
    kills = []
    for n, answer in enumerate(answers, start=1):
        silent = silence.record(answer, start + n * every)
        if silent is not None:
            kills.append(silent)
    return kills


def test_a_service_silent_for_the_timeout_and_several_probes_is_to_be_killed() -> None:
    silence = Silence(WATCH, now=0.0)
    assert probes(silence, [Answer.SILENT] * 5, every=5.0) == []  # 25 s
    assert silence.record(Answer.SILENT, 30.0) == 30.0
    assert silence.misses == 6


def test_one_answer_starts_the_count_anew() -> None:
    silence = Silence(WATCH, now=0.0)
    answers = [Answer.SILENT] * 5 + [Answer.HEALTHY] + [Answer.SILENT] * 5
    assert probes(silence, answers, every=5.0) == []
    assert silence.record(Answer.SILENT, 60.0) == 30.0


def test_an_answer_that_says_unhealthy_is_an_answer() -> None:
    # Its database is down: a restart would not bring it back, and would drop what it serves.
    silence = Silence(WATCH, now=0.0)
    assert probes(silence, [Answer.UNHEALTHY] * 100, every=5.0) == []


def test_a_nats_that_does_not_answer_is_no_fault_of_the_service() -> None:
    silence = Silence(WATCH, now=0.0)
    answers = [Answer.SILENT] * 5 + [Answer.NATS_UNREACHABLE] * 100
    assert probes(silence, answers, every=5.0) == []
    # Once NATS is back, the service gets the whole timeout again to reconnect and answer.
    assert probes(silence, [Answer.SILENT] * 5, every=5.0, start=525.0) == []
    assert silence.record(Answer.SILENT, 555.0) == 30.0


def test_a_short_timeout_still_needs_several_probes_in_a_row() -> None:
    silence = Silence(Liveness(timeout=0.1), now=0.0)
    kills = probes(silence, [Answer.SILENT] * MISSES, every=1.0)  # each probe ran out its 1 s
    assert kills == [float(MISSES)]  # not after the first
    assert Liveness(timeout=0.9).interval == pytest.approx(0.3)
    assert Liveness(timeout=300).interval == 5.0  # a long timeout still probes every 5 s


def test_the_timeout_is_read_from_the_environment() -> None:
    assert Liveness.from_env({}) == Liveness(30.0)
    assert Liveness.from_env({LIVENESS_ENV: " 90 "}) == Liveness(90.0)
    assert Liveness.from_env({LIVENESS_ENV: "2.5"}) == Liveness(2.5)
    assert Liveness.from_env({LIVENESS_ENV: "0"}) is None  # no watch


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "30s"])
def test_a_bad_timeout_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(UsageError) as refused:
        Liveness.from_env({LIVENESS_ENV: value})
    assert str(refused.value) == (
        f"BATON_LIVENESS_TIMEOUT_SECONDS: must be a finite number of seconds above 0"
        f" (or 0 to turn the liveness watch off), got {value!r}"
    )


# How the restart rule (`keep_alive`) counts the runs the watch killed.

POLICY = RestartPolicy(first_delay=0.0, max_delay=0.0, stable_after=30.0, max_crashes=3)
KILLED = "svc was killed by the liveness watch, as it stopped answering (exited with code -9)"


def hung(answered: float) -> tuple[Ending, float]:
    """A run the watch killed `answered` s after its start plus the 35 s it spent silent."""
    return Ending("exited with code -9", answered=answered), answered + 35.0


def crashed(uptime: float) -> tuple[Ending, float]:
    return Ending("exited with code 1"), uptime


class Runs:
    """A supervised service that ends once per entry of `runs` (how, and its uptime then), each
    restart healthy; it then runs on for good."""

    name = "svc"
    log = Path("/data/logs/svc.log")

    def __init__(self, runs: list[tuple[Ending, float]]) -> None:
        self.runs = runs
        self.current = 0.0

    async def ended(self) -> Ending:
        if not self.runs:
            await asyncio.Event().wait()
        ending, self.current = self.runs.pop(0)
        return ending

    def uptime(self) -> float:
        return self.current

    async def restart(self) -> bool:
        return True


async def keep(runs: list[tuple[Ending, float]], lines: list[str]) -> None:
    """`keep_alive` until it gives up; a `TimeoutError` if it never does (a bound, no timing)."""
    child = Runs(runs)
    await asyncio.wait_for(keep_alive(child, POLICY, lines.append), timeout=10)


async def test_the_restart_line_says_the_watch_killed_it() -> None:
    lines: list[str] = []
    with pytest.raises(TimeoutError):  # restarted, never given up
        await keep([hung(answered=600.0)], lines)
    assert lines == [f"{KILLED}; restarting", "svc is healthy again"]


async def test_a_service_that_hangs_again_each_restart_is_given_up() -> None:
    # Each run lasts longer than `stable_after`, but only because the watch waits out its 30 s:
    # it answered for 3 s. Restarting it every half minute for good mends nothing.
    lines: list[str] = []
    with pytest.raises(ServiceFailed) as failed:
        await keep([hung(answered=3.0)] * 3, lines)
    assert str(failed.value) == (
        f"{KILLED}; it stopped answering 3 times in a row, giving up; see /data/logs/svc.log"
    )
    assert lines.count(f"{KILLED}; restarting") == 2


async def test_a_run_that_answered_for_long_before_it_hung_starts_the_count_anew() -> None:
    lines: list[str] = []
    runs = [hung(3.0), hung(3.0), hung(600.0), hung(3.0), hung(3.0)]
    with pytest.raises(ServiceFailed) as failed:
        await keep(runs, lines)
    assert "it stopped answering 3 times in a row, giving up" in str(failed.value)
    assert lines.count(f"{KILLED}; restarting") == 4


async def test_crashes_and_hangs_in_a_row_count_together() -> None:
    lines: list[str] = []
    with pytest.raises(ServiceFailed) as failed:
        await keep([crashed(1.0), hung(3.0), hung(3.0)], lines)
    assert str(failed.value) == (
        f"{KILLED}; it crashed once and stopped answering 2 times in a row, giving up;"
        " see /data/logs/svc.log"
    )
    assert lines[0] == "svc exited with code 1; restarting"
