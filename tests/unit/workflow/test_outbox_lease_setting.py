"""`BATON_OUTBOX_LEASE_SECONDS` must end inside JetStream's duplicate window of the workflow's
streams: a relay that takes over after a crash publishes again what the dead one published and
had not deleted, and JetStream drops those copies only within that window."""

from __future__ import annotations

import pytest

from baton_contracts import STREAMS
from baton_workflow.entrypoints.main import main
from baton_workflow.settings import WorkflowSettings

VARIABLE = "BATON_OUTBOX_LEASE_SECONDS"
WINDOW = min(s.duplicate_window_seconds for s in STREAMS if s.name.startswith("WORKFLOW_"))


@pytest.mark.parametrize("value", [str(WINDOW), "121", "600"])
def test_a_lease_past_the_duplicate_window_stops_the_service_with_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    monkeypatch.setenv(VARIABLE, value)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"workflow: invalid settings: {VARIABLE}: must be less than "), line
    assert f"{WINDOW:g} s" in line and "duplicate window" in line, line


@pytest.mark.parametrize("value", ["0.5", "10", "119.9"])
def test_a_lease_inside_the_window_is_taken(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(VARIABLE, value)
    assert WorkflowSettings().outbox_lease_seconds == float(value)
