"""`Outage`: which failed tries of a retrying loop are said, on the caller's clock."""

from __future__ import annotations

from baton_telemetry.outages import Outage


def test_the_first_failure_is_said_then_at_most_one_reminder_a_minute() -> None:
    outage = Outage()
    said = [outage.failed(float(now)) for now in range(100, 260, 7)]
    assert said[0] == "first"
    # Failed at 100, 107, ...: a reminder once 60 s have passed since the last line said.
    reminders = [100 + 7 * i for i, say in enumerate(said) if say == "again"]
    assert reminders == [163, 226]
    assert said.count("quiet") == len(said) - 3
    assert outage.tries == len(said)
    assert outage.lasted(250.0) == 150.0


def test_an_outage_counts_from_the_start_of_its_first_try() -> None:
    outage = Outage()
    assert outage.failed(105.0, began=100.0) == "first"
    assert outage.lasted(110.0) == 10.0
    assert outage.failed(160.0) == "quiet"  # 55 s after the line was said, not 60 after began
    assert outage.failed(165.0) == "again"


def test_the_end_says_how_long_and_how_many_tries_and_a_new_outage_begins_after() -> None:
    outage = Outage(repeat_every=10)
    assert outage.ended(5.0) is None  # nothing failed: nothing to say
    outage.failed(10.0)
    outage.failed(12.0)
    assert outage.ended(20.0) == (10.0, 2)
    assert outage.since is None and outage.lasted(30.0) == 0.0
    assert outage.failed(30.0) == "first"
