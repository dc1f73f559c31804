"""`baton workflow run` past the gateway's limit of runs running at once (429 `too_many`):
the gateway's words, and exit 1."""

from __future__ import annotations

from pathlib import Path

import httpx
from typer.testing import CliRunner

from baton_cli.main import app
from baton_cli.workflows import WorkflowCliDeps

from .fake_workflow_gateway import TOKEN

runner = CliRunner()


def test_a_start_past_the_run_limit_prints_the_gateways_words_and_exits_1(
    tmp_path: Path,
) -> None:
    message = (
        "you have 100 runs running, and at most 100 may run at once; start this one when "
        "another has ended, or cancel one"
    )

    def full(request: httpx.Request) -> httpx.Response:
        detail = {"field": "runs", "message": "100 running of at most 100"}
        body = {"error": {"code": "too_many", "message": message, "details": [detail]}}
        return httpx.Response(429, json=body)

    obj = WorkflowCliDeps(transport=httpx.MockTransport(full))
    env = {"BATON_URL": "http://gw.test", "BATON_TOKEN": TOKEN, "BATON_USER": None}
    result = runner.invoke(
        app, ["workflow", "--data-dir", str(tmp_path), "run", "w"], obj=obj, env=env
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == f"error: HTTP 429 too_many: {message}\n"
