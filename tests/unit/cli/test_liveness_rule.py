"""When `baton up` kills a service that stopped answering: only its own silence counts."""

from __future__ import annotations

import pytest

from baton_cli.errors import UsageError
from baton_cli.health import Answer
from baton_cli.liveness import LIVENESS_ENV, MISSES, Liveness, Silence

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
