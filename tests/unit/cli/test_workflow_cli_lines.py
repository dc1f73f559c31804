"""`baton workflow` in a pipe or a CI log: every record is one whole line, however long."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from baton_cli.main import app
from baton_cli.workflows import WorkflowCliDeps

from .fake_workflow_gateway import T0, TOKEN, FakeGateway

runner = CliRunner()
LONG_NAME = "w" * 128  # the longest name a workflow may have
LONG_TEXT = "LONG " + " ".join(f"word{i}" for i in range(80))  # about 500 characters


@pytest.fixture
def gateway() -> FakeGateway:
    return FakeGateway()


def cli(gateway: FakeGateway, tmp_path: Path, *args: str) -> Result:
    deps = WorkflowCliDeps(transport=gateway.transport, sleep=gateway.sleep)
    env = {"BATON_URL": "http://gw.test", "BATON_TOKEN": TOKEN, "COLUMNS": None}
    result = runner.invoke(app, ["workflow", "--data-dir", str(tmp_path), *args], obj=deps, env=env)
    assert result.exit_code == 0, result.output
    return result


def finished_run(gateway: FakeGateway, run_id: str, workflow: str, **extra: Any) -> None:
    gateway.add_run({
        "run_id": run_id, "workflow": workflow, "version": 1, "version_id": f"{workflow}@1",
        "mode": "live", "status": "success", "started_at": T0,
        "finished_at": "2025-01-01T10:03:04+00:00", "cost_usd": 0.5, "error": None,
        "variables": {}, "steps": [], "handoffs": [], "messages": [], "estimate": None, **extra,
    })  # fmt: skip


def test_wait_prints_each_steps_output_preview_on_one_line(
    gateway: FakeGateway, tmp_path: Path
) -> None:
    gateway.store({"name": "long", "steps": [{"id": "a", "prompt": LONG_TEXT}]})
    lines = cli(gateway, tmp_path, "run", "long", "--wait").stdout.splitlines()
    [preview] = [line for line in lines if line.startswith("  a [success]: ")]
    assert preview == "  a [success]: " + LONG_TEXT[:199] + "…"
    assert lines[lines.index(preview) + 1].startswith("full detail: ")


def test_messages_prints_a_long_message_line_whole(gateway: FakeGateway, tmp_path: Path) -> None:
    message = {"step": "a", "agent": "hisui", "role": "assistant", "text": LONG_TEXT, "at": T0}
    finished_run(gateway, "run-1", "long", messages=[message])
    assert f"  {LONG_TEXT}" in cli(gateway, tmp_path, "msgs", "run-1").stdout.splitlines()


def test_runs_prints_one_line_per_run_with_the_longest_name(
    gateway: FakeGateway, tmp_path: Path
) -> None:
    gateway.store({"name": LONG_NAME, "steps": [{"id": "a", "prompt": "x"}]})
    finished_run(gateway, "run-1", LONG_NAME)
    finished_run(gateway, "run-2", LONG_NAME)
    lines = cli(gateway, tmp_path, "runs", LONG_NAME).stdout.splitlines()
    assert len(lines) == 3  # the header and one line per run
    assert all(f"{LONG_NAME}@1" in line for line in lines[1:])


def test_table_lines_end_at_their_last_character(gateway: FakeGateway, tmp_path: Path) -> None:
    # Rich padded every cell to its column's width, the last column's too: the rows of list,
    # runs, history and show ended in spaces (which a diff or `grep 'x$'` trips on).
    steps = [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y", "dependsOn": ["a"]}]
    gateway.store({"name": "wf", "description": "a longer description", "steps": steps})
    gateway.store({"name": "wf", "steps": steps}, "update")
    gateway.store({"name": "wf", "steps": steps}, "rollback", "wf@1")
    gateway.store({"name": "other", "steps": steps})
    finished_run(gateway, "run-1", "wf")
    finished_run(gateway, "run-2", "wf", mode="dry_run")
    for command in (["list"], ["runs"], ["history", "wf"], ["show", "wf"]):
        lines = cli(gateway, tmp_path, *command).stdout.splitlines()
        assert len(lines) > 2, lines
        assert [line for line in lines if line != line.rstrip()] == [], command
