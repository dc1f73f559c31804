"""docs/dag-workflows.md, "Running workflows": every `sh` block runs, in order, with curl.

The gateway of the in-process platform is served on a free port; the blocks run as one bash
script, with only the gateway's address and the token (minted for the platform's secret
instead of `baton token`) put in. Each block's documented output follows it in a plain code
block; the checks below hold the examples to what that output says.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from baton_auth import mint_token

from ...platform_stack import SECRET, Stack
from .conftest import Author
from .test_live import serving

DOC = Path(__file__).parents[3] / "docs" / "dag-workflows.md"
TOKEN_COMMAND = "$(.venv/bin/baton token --user alice)"


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    return module_stack


def section() -> str:
    text = DOC.read_text()
    start = text.index("## Running workflows")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def script(port: int, token: str) -> str:
    blocks = re.findall(r"^```sh\n(.*?)^```", section(), flags=re.S | re.M)
    assert len(blocks) >= 8, "docs/dag-workflows.md lost its examples"
    body = "\n".join(blocks)
    assert TOKEN_COMMAND in body and "127.0.0.1:8080" in body
    body = body.replace(TOKEN_COMMAND, token).replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    return "set -euo pipefail\n" + body


async def test_the_documented_curl_session_runs_as_written(
    stack: Stack, author: Author, tmp_path: Path
) -> None:
    async with serving(stack) as port:
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            script(port, mint_token(SECRET, author.name)),
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    output = out.decode()
    print(output)
    assert process.returncode == 0, err.decode() + output
    assert '"version_id":"draft-and-review@1","changed":true' in output
    form = "header.content-type: is 'application/x-www-form-urlencoded'; send the document as"
    assert form in output  # curl's default type is refused, not read as a document
    assert '"field": "body.steps[0].timeout"' in output
    assert 'steps[1].prompt: \\"{{\\" at character 10 opens a template' in output
    assert '"status": "success"' in output
    assert "error budget_exceeded - step cost $0.5000 exceeded its budget $0.1000" in output
    assert "['draft'] 2 draft\n['review', 'tell'] 0 None" in output  # a page at a time
    assert "estimate:" in output
    # Every page of the runs, one line each (the run id, its workflow, its status).
    assert re.search(r"^[0-9a-f]{32} draft-and-review success$", output, flags=re.M), output
    # Every page of the workflows, one line each (the version id, its number of steps).
    assert re.search(r"^draft-and-review@\d+ \d+ steps$", output, flags=re.M), output
    # Every page of the history, two versions a page, newest first.
    assert "version draft-and-review@3 rollback\nversion draft-and-review@2 update\n" in output
    assert '"recorded": true' in output
    assert "cancelled - run cancelled: wrong topic" in output
    assert "+++ draft-and-review@2" in output
    assert output.rstrip().endswith("204")
    runs = (await author.get("/workflow-runs"))["runs"]
    assert {r["mode"] for r in runs} == {"live", "dry_run"}
    assert all(r["status"] == "success" for r in runs if r["mode"] == "dry_run")
    twice = [line for line in output.splitlines() if line.startswith('{"run_id"')]
    # One run for one Idempotency-Key: the second answer names the first's run, whose status
    # may have moved on in between ("running", then "success").
    assert len(twice) == 2
    assert json.loads(twice[0])["run_id"] == json.loads(twice[1])["run_id"]
    assert json.loads(twice[0])["run_id"] in {r["run_id"] for r in runs}
