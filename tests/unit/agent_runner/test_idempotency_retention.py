"""How long idempotency records are kept (`BATON_IDEMPOTENCY_RETENTION_HOURS`), how often they
are pruned, and what one prune round logs when the logs answer, fail, or the database is down."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from baton_agent_runner.entrypoints.main import main
from baton_agent_runner.service.log_pruning import LogPruner, prune_interval
from baton_agent_runner.service.ports import PrunableLog, StoreUnavailable
from baton_agent_runner.settings import AgentRunnerSettings

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
VARIABLE = "BATON_IDEMPOTENCY_RETENTION_HOURS"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0", "Input should be greater than 0"),
        ("-1", "Input should be greater than 0"),
        ("876000.5", "Input should be less than or equal to 876000"),
        ("inf", "Input should be less than or equal to 876000"),
        ("a week", "Input should be a valid number"),
    ],
)
def test_a_bad_retention_stops_the_service_with_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    monkeypatch.setenv(VARIABLE, value)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"agent-runner: invalid settings: {VARIABLE}: {said}"), line


@pytest.mark.parametrize(("value", "hours"), [("0.001", 0.001), ("876000", 876000.0)])
def test_the_retention_may_be_anything_above_0_up_to_100_years(
    monkeypatch: pytest.MonkeyPatch, value: str, hours: float
) -> None:
    monkeypatch.setenv(VARIABLE, value)
    assert AgentRunnerSettings().idempotency_retention_hours == hours


def test_records_are_kept_7_days_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    assert AgentRunnerSettings().idempotency_retention_hours == 168


@pytest.mark.parametrize(
    ("retention", "every"),
    [
        (timedelta(days=7), 3600.0),  # hourly
        (timedelta(hours=24), 3600.0),
        (timedelta(hours=12), 1800.0),  # a 24th of the retention when that is shorter
        (timedelta(seconds=1), 1.0),  # never a busy loop
    ],
)
def test_prunes_come_hourly_or_every_24th_of_the_retention(
    retention: timedelta, every: float
) -> None:
    assert prune_interval(retention) == every


class FakeLog:
    """A log whose prune deletes `removes` rows, or raises `fails`."""

    def __init__(self, removes: int = 0, fails: Exception | None = None) -> None:
        self.removes, self.fails = removes, fails
        self.asked: list[datetime] = []

    async def prune(self, older_than: datetime) -> int:
        self.asked.append(older_than)
        if self.fails is not None:
            raise self.fails
        return self.removes


def _pruner(**logs: PrunableLog) -> LogPruner:
    return LogPruner(logs, retention=timedelta(hours=168), every=3600.0, now=lambda: NOW)


async def test_a_round_deletes_what_is_older_than_the_retention_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    replies, tasks = FakeLog(removes=3), FakeLog(removes=0)
    caplog.set_level(logging.INFO, logger="baton.agent_runner")
    assert await _pruner(replies=replies, tasks=tasks).prune() == {"replies": 3, "tasks": 0}
    assert replies.asked == tasks.asked == [NOW - timedelta(days=7)]
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "INFO",
            "deleted idempotency records older than 168 h (recorded before "
            "2026-11-18T12:00:00+00:00): replies 3",
        )
    ]


async def test_a_round_that_deletes_nothing_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="baton.agent_runner")
    assert await _pruner(replies=FakeLog(), tasks=FakeLog()).prune() == {"replies": 0, "tasks": 0}
    assert caplog.records == []


async def test_a_database_outage_is_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    down = StoreUnavailable("replies: OperationalError: could not connect\n(Background on ...)")
    replies, tasks = FakeLog(fails=down), FakeLog(removes=2)
    assert await _pruner(replies=replies, tasks=tasks).prune() == {}
    assert tasks.asked == []  # the same database: not tried, not logged twice
    [record] = caplog.records
    assert record.levelname == "WARNING" and record.exc_info is None
    assert record.getMessage() == (
        "could not delete idempotency records older than 168 h: the database is unavailable "
        "(replies: OperationalError: could not connect); trying again in 3600 s"
    )


async def test_a_failing_log_is_logged_with_its_traceback_and_the_others_are_pruned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    replies, tasks = FakeLog(fails=RuntimeError("a bug")), FakeLog(removes=2)
    caplog.set_level(logging.INFO, logger="baton.agent_runner")
    assert await _pruner(replies=replies, tasks=tasks).prune() == {"tasks": 2}
    error, info = [r for r in caplog.records if r.name.startswith("baton.agent_runner")]
    assert error.levelname == "ERROR" and error.exc_info is not None
    assert error.getMessage().startswith("could not delete replies older than 168 h")
    assert info.levelname == "INFO" and info.getMessage().endswith(": tasks 2")


async def test_stop_before_start_and_start_without_logs_do_nothing() -> None:
    idle = _pruner()
    idle.start()  # nothing to prune: no task
    assert idle._task is None
    await idle.stop()
    await _pruner(replies=FakeLog()).stop()
