"""`BATON_WORKFLOW_DAG_WRITE_TIMEOUT_SECONDS` bounds every DAG write a request waits for."""

from __future__ import annotations

import pytest

from baton_workflow.entrypoints.main import main
from baton_workflow.settings import WorkflowSettings

NEW = "BATON_WORKFLOW_DAG_WRITE_TIMEOUT_SECONDS"


def test_unset_it_is_two_and_a_half_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NEW, raising=False)
    assert WorkflowSettings().workflow_dag_write_timeout_seconds == 2.5


def test_it_is_read_from_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NEW, "1.5")
    assert WorkflowSettings().workflow_dag_write_timeout_seconds == 1.5


def test_a_timeout_not_above_zero_stops_the_service_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(NEW, "0")
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == f"workflow: invalid settings: {NEW}: Input should be greater than 0 (got '0')"
