"""`baton workflow` shows the control characters in what others wrote, and never sends them to
the terminal: a step's output or an agent's message (a model's text, which a prompt may have
steered) could otherwise write the clipboard (`ESC ] 52`), retitle the window or clear the
screen of whoever reads the run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from baton_cli.main import app
from baton_cli.printable import PrintableConsole, json_text, printable
from baton_cli.workflows import WorkflowCliDeps

from .fake_workflow_gateway import T0, TOKEN, FakeGateway

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: "put this in the clipboard"
HOSTILE = f"done{CLIPBOARD}\x1b[2J\rfake ok \x9b31mred\x7f"
"""OSC 52, a screen clear, a carriage return, a one-byte CSI (C1) and DEL."""
RAW = ("\x1b", "\x07", "\r", "\x9b", "\x7f")
runner = CliRunner()


def _run(gateway: FakeGateway) -> None:
    gateway.add_run({
        "run_id": "r1", "workflow": "w", "version": 1, "version_id": "w@1", "mode": "live",
        "status": "error", "started_at": T0, "finished_at": T0, "cost_usd": 0.1,
        "error": HOSTILE, "variables": {"topic": HOSTILE},
        "steps": [{"id": "s", "type": "dispatch", "status": "error", "error": HOSTILE,
                   "output": HOSTILE}],
        "handoffs": [], "estimate": None,
        "messages": [{"step": "s", "agent": "a", "role": "assistant", "text": HOSTILE,
                      "at": T0}],
    })  # fmt: skip


def _cli(gateway: FakeGateway, data_dir: Path, *args: str, **deps: Any) -> Result:
    obj = WorkflowCliDeps(transport=gateway.transport, sleep=gateway.sleep, **deps)
    env = {"BATON_URL": "http://gw.test", "BATON_TOKEN": TOKEN, "BATON_USER": None}
    return runner.invoke(app, ["workflow", "--data-dir", str(data_dir), *args], obj=obj, env=env)


def test_printable_signs_every_control_but_tab_and_line_feed() -> None:
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable(HOSTILE) == "done␛]52;c;cm0gLXJmIH4=␇␛[2J␍fake ok \\x9b31mred␡"
    assert printable("naïve — 日本 😀") == "naïve — 日本 😀"  # only controls change


@pytest.mark.parametrize("command", [("messages", "r1"), ("list",)])
def test_what_a_run_holds_is_shown_not_obeyed(tmp_path: Path, command: tuple[str, ...]) -> None:
    gateway = FakeGateway()
    _run(gateway)
    gateway.store({"name": "w", "description": HOSTILE, "steps": []})
    result = _cli(gateway, tmp_path, *command)
    assert result.exit_code == 0, result.output
    assert not [c for c in RAW if c in result.stdout], repr(result.stdout)
    assert "done␛]52;c;cm0gLXJmIH4=" in result.stdout
    if command[0] == "messages":
        # Rich drops BEL itself; the message's lines are split at the carriage return.
        assert "  done␛]52;c;cm0gLXJmIH4=␛[2J\n  fake ok \\x9b31mred␡\n" in result.stdout


def test_a_terminal_gets_rich_styles_but_not_the_runs_sequences(tmp_path: Path) -> None:
    gateway = FakeGateway()
    _run(gateway)
    screen = io.StringIO()
    console = PrintableConsole(file=screen, force_terminal=True, width=140)
    result = _cli(gateway, tmp_path, "messages", "r1", console=console)
    assert result.exit_code == 0, result.output
    assert "\x1b[1m" in screen.getvalue()  # the heading's own bold
    assert CLIPBOARD not in screen.getvalue() and "\x9b" not in screen.getvalue()
    assert "done␛]52;c;cm0gLXJmIH4=" in screen.getvalue()


def test_json_for_scripts_escapes_them_and_reads_back_the_same(tmp_path: Path) -> None:
    gateway = FakeGateway()
    _run(gateway)
    result = _cli(gateway, tmp_path, "status", "r1")
    assert result.exit_code == 0, result.output
    assert not [c for c in RAW if c in result.stdout], repr(result.stdout)
    assert json.loads(result.stdout)["messages"][0]["text"] == HOSTILE
    assert json.loads(json_text({"k": HOSTILE})) == {"k": HOSTILE}


def test_a_reason_or_a_warning_from_the_gateway_is_shown_not_obeyed(tmp_path: Path) -> None:
    gateway = FakeGateway()
    _run(gateway)
    gateway.runs["r1"]["status"] = "running"
    said = _cli(gateway, tmp_path, "cancel", "r1", "--reason", HOSTILE)  # echoed by the gateway
    assert said.exit_code == 0, said.output
    assert not [c for c in RAW if c in said.stdout] and "(reason: done␛]52" in said.stdout
    gateway.warnings = [HOSTILE]
    document = tmp_path / "w.json"
    document.write_text(json.dumps({"name": "w", "steps": [{"id": "a", "prompt": "x"}]}))
    created = _cli(gateway, tmp_path, "create", str(document))
    assert created.exit_code == 0, created.output
    assert not [c for c in RAW if c in created.stderr] and "warning: done␛]52" in created.stderr
