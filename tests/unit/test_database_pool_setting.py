"""`BATON_DATABASE_POOL_SIZE` bounds each service's PostgreSQL connections.

Built, not started: building a service opens no connection, so these need no server.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from baton_agent_runner.bootstrap import build as build_agent_runner
from baton_agent_runner.settings import AgentRunnerSettings
from baton_workflow.bootstrap import build as build_workflow
from baton_workflow.settings import WorkflowSettings

POSTGRES = "postgresql+asyncpg://nobody@127.0.0.1:9/none"


def test_the_workflow_pool_and_its_append_pool_follow_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BATON_DATABASE_URL", POSTGRES)
    monkeypatch.setenv("BATON_DATABASE_POOL_SIZE", "7")
    app = build_workflow(WorkflowSettings())
    assert app.store.engine.sync_engine.pool.size() == 7  # type: ignore[attr-defined]
    assert app.store.appender is not None and app.store.appender.max_size == 7


def test_the_agent_runner_pool_follows_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_DATABASE_URL", POSTGRES)
    monkeypatch.setenv("BATON_DATABASE_POOL_SIZE", "3")
    monkeypatch.setenv("BATON_MEMORY_BACKEND", "sql")
    app = build_agent_runner(AgentRunnerSettings())
    assert app.engine.sync_engine.pool.size() == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize("settings", [WorkflowSettings, AgentRunnerSettings])
@pytest.mark.parametrize("value", ["0", "-1", "1001", "many"])
def test_a_bad_pool_size_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, settings: type, value: str
) -> None:
    monkeypatch.setenv("BATON_DATABASE_POOL_SIZE", value)
    with pytest.raises(ValidationError, match="database_pool_size"):
        settings()
