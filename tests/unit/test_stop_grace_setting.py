"""`BATON_STOP_GRACE_SECONDS` is how long the responders of a stopping service let requests in
flight finish before cancelling them.

Built, not started: building a service opens no connection, so these need no server.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from baton_agent_runner.bootstrap import build as build_agent_runner
from baton_agent_runner.settings import AgentRunnerSettings
from baton_cli.restarts import KILL_MARGIN_SECONDS
from baton_eventstore.closing import GOODBYE_SECONDS
from baton_workflow.bootstrap import RELAY_TIDY_SECONDS, STOP_AFTER_GRACE_SECONDS
from baton_workflow.bootstrap import build as build_workflow
from baton_workflow.settings import WorkflowSettings


def _graces(broker: Any) -> dict[str, float]:
    """Each responder's grace, by subject (a responder's `stop` is its `Serving`'s)."""
    return {
        served._subject: served._limits.grace
        for sub in broker.subscribers
        if hasattr(served := getattr(sub.stop, "__self__", None), "_limits")
    }


@pytest.mark.parametrize(
    ("build", "settings", "subject"),
    [
        (build_workflow, WorkflowSettings, "workflow.cmd.send_message"),
        (build_agent_runner, AgentRunnerSettings, "agent.cmd.task"),
    ],
)
def test_every_responder_of_the_service_takes_the_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, build: Any, settings: type, subject: str
) -> None:
    monkeypatch.setenv("BATON_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/x.db")
    monkeypatch.setenv("BATON_MEMORY_BACKEND", "sql")
    monkeypatch.setenv("BATON_STOP_GRACE_SECONDS", "2.5")
    graces = _graces(build(settings()).broker)
    assert graces[subject] == 2.5
    assert set(graces.values()) == {2.5}


@pytest.mark.parametrize("settings", [WorkflowSettings, AgentRunnerSettings])
@pytest.mark.parametrize("value", ["-1", "soon"])
def test_a_bad_grace_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, settings: type, value: str
) -> None:
    monkeypatch.setenv("BATON_STOP_GRACE_SECONDS", value)
    with pytest.raises(ValidationError, match="stop_grace_seconds"):
        settings()


def test_the_workflow_stop_past_its_grace_ends_before_baton_up_kills_it() -> None:
    """A stop on a database that answers nothing ends `STOP_AFTER_GRACE_SECONDS` past the
    grace; `baton up` sends SIGKILL `KILL_MARGIN_SECONDS` past it. A kill would skip the pools'
    goodbyes and the relay's tidying up, and its log line says the service hung."""
    assert STOP_AFTER_GRACE_SECONDS + 1.0 <= KILL_MARGIN_SECONDS  # 1 s for a loaded host
    assert RELAY_TIDY_SECONDS + GOODBYE_SECONDS < STOP_AFTER_GRACE_SECONDS  # room to publish
