"""`BATON_MAX_USER_SHARE` is the most of the agent-runner's turn and DAG step slots one user's
requests may take at once.

Built, not started: building the service opens no connection, so these need no server.
"""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.bootstrap import build
from baton_agent_runner.entrypoints.main import main
from baton_agent_runner.settings import AgentRunnerSettings


def _user_caps(broker: Any) -> dict[str, int]:
    """Each responder's cap on one user's requests at once, by subject."""
    return {
        served._subject: served._limits.user_cap
        for sub in broker.subscribers
        if hasattr(served := getattr(sub.stop, "__self__", None), "_limits")
    }


@pytest.fixture
def stores(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("BATON_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/x.db")
    monkeypatch.setenv("BATON_MEMORY_BACKEND", "sql")


@pytest.mark.usefixtures("stores")
def test_by_default_a_lone_user_may_take_every_slot() -> None:
    caps = _user_caps(build(AgentRunnerSettings()).broker)
    assert caps["agent.cmd.run"] == 256
    assert caps["agent.cmd.task"] == 128


@pytest.mark.usefixtures("stores")
def test_turns_and_dag_steps_take_the_share(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_MAX_USER_SHARE", "0.25")
    monkeypatch.setenv("BATON_TASK_CONCURRENCY", "40")
    caps = _user_caps(build(AgentRunnerSettings()).broker)
    assert caps["agent.cmd.run"] == 64
    assert caps["agent.cmd.task"] == 10


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("0", "BATON_MAX_USER_SHARE: Input should be greater than 0 (got '0')"),
        ("1.5", "BATON_MAX_USER_SHARE: Input should be less than or equal to 1 (got '1.5')"),
        ("half", "BATON_MAX_USER_SHARE: Input should be a valid number"),
    ],
)
def test_a_share_outside_0_to_1_stops_the_start_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    monkeypatch.setenv("BATON_MAX_USER_SHARE", value)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"agent-runner: invalid settings: {said}")
