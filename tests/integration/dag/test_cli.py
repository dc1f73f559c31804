"""`baton workflow` end to end against the in-process gateway, services and scripted agents.

The CLI is synchronous, so it runs in a worker thread; its HTTP transport hands each request
to the gateway's ASGI app on the test's event loop.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from baton_auth import mint_token
from baton_cli.main import app
from baton_cli.workflows import WorkflowCliDeps

from ...platform_stack import SECRET, Stack
from .conftest import Author

RESEARCH: dict[str, Any] = {
    "name": "research-and-summarize",
    "description": "Gather information and write a summary",
    "variables": {"topic": "AI agents"},
    "timeout": "30m",
    "steps": [
        {"id": "research", "agent": "hisui",
         "prompt": "Search and organize the latest developments in {{topic}}, "
                   "listing 5 key points"},
        {"id": "summarize", "agent": "kohaku",
         "prompt": "Write a 300-word summary based on the following:\n{{steps.research.output}}",
         "dependsOn": ["research"]},
    ],
}  # fmt: skip


class LoopTransport(httpx.BaseTransport):
    """A blocking transport for the CLI's thread, served by an ASGI app on another loop."""

    def __init__(self, asgi: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._inner = httpx.ASGITransport(app=asgi)
        self._loop = loop

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        content = request.read()

        async def send() -> tuple[int, httpx.Headers, bytes]:
            forwarded = httpx.Request(
                request.method, request.url, headers=request.headers, content=content
            )
            response = await self._inner.handle_async_request(forwarded)
            return response.status_code, response.headers, await response.aread()

        status, headers, body = asyncio.run_coroutine_threadsafe(send(), self._loop).result(60)
        return httpx.Response(status, headers=headers, content=body)


class Cli:
    """`baton workflow ...` as one user; each call returns click's `Result`."""

    def __init__(self, stack: Stack, data_dir: Path, user: str) -> None:
        self.transport = LoopTransport(stack.notifier.app, asyncio.get_running_loop())
        self.data_dir = data_dir
        self.env = {"BATON_URL": "http://gateway", "BATON_TOKEN": mint_token(SECRET, user)}

    async def __call__(self, *args: str) -> Result:
        argv = ["workflow", "--data-dir", str(self.data_dir), *args]
        deps = WorkflowCliDeps(transport=self.transport)
        return await asyncio.to_thread(CliRunner().invoke, app, argv, obj=deps, env=self.env)

    async def ok(self, *args: str) -> str:
        result = await self(*args)
        assert result.exit_code == 0, result.output + result.stderr
        return result.stdout


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    return module_stack


@pytest.fixture
async def cli(stack: Stack, tmp_path: Path, author: Author) -> Cli:
    return Cli(stack, tmp_path / "data", author.name)


def write(folder: Path, name: str, document: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(document))
    return path


async def test_validate_create_list_run_and_inspect(
    cli: Cli, author: Author, tmp_path: Path
) -> None:
    path = write(tmp_path, "my-workflow.json", RESEARCH)
    assert "workflow research-and-summarize is valid" in await cli.ok("validate", str(path))
    assert (await author.get("/workflows"))["workflows"] == []  # validating stores nothing

    out = await cli.ok("create", str(path))
    assert "created workflow research-and-summarize: version 1" in out
    listed = await cli.ok("ls")
    assert "research-and-summarize@1" in listed and "Gather information" in listed
    assert "is valid" in await cli.ok("validate", "research-and-summarize")

    out = await cli.ok("run", "research-and-summarize", "--var", "topic=LLM safety", "--wait")
    assert "step research: success" in out and "step summarize: success" in out
    assert "research [success]: Research notes on LLM safety" in out
    run_id = out.split("started run ", 1)[1].split()[0]

    status = json.loads(await cli.ok("status", run_id))
    assert status["status"] == "success" and status["version_id"] == "research-and-summarize@1"
    assert [s["status"] for s in status["steps"]] == ["success", "success"]
    assert status["variables"] == {"topic": "LLM safety"}
    runs = await cli.ok("runs", "research-and-summarize")
    assert run_id in runs and "success" in runs
    msgs = json.loads(await cli.ok("msgs", run_id, "--json"))
    assert [(m["step"], m["role"]) for m in msgs["messages"]] == [
        ("research", "user"), ("research", "assistant"),
        ("summarize", "user"), ("summarize", "assistant"),
    ]  # fmt: skip
    assert "summarize" in await cli.ok("messages", run_id)


async def test_an_invalid_file_exits_2_listing_every_problem(cli: Cli, tmp_path: Path) -> None:
    broken = {
        "name": "broken",
        "steps": [
            {"id": "a", "prompt": "x", "dependsOn": ["reserch"], "onError": "explode"},
            {"id": "research", "prompt": "y", "timeout": "soon"},
        ],
    }
    path = write(tmp_path, "broken.json", broken)
    for command in ("validate", "create"):
        result = await cli(command, str(path))
        assert result.exit_code == 2, result.output
        lines = result.stderr.splitlines()
        assert lines[0].startswith("error: workflow") and "(3 problems)" in lines[0], lines
        assert 'steps[0].dependsOn[0]: unknown step "reserch" (did you mean "research"?)' in lines
        assert any(line.startswith("steps[0].onError: must be") for line in lines)
        assert any(line.startswith('steps[1].timeout: invalid duration "soon"') for line in lines)
    assert "no workflows yet" in await cli.ok("list")


@pytest.mark.parametrize(
    ("name", "problem"),
    [(None, "name: required"),
     ("bad name!", 'name: "bad name!" may use only letters, digits, "-" and "_"'),
     ("n" * 129, "name: has 129 characters; at most 128 allowed")],
)  # fmt: skip
async def test_a_bad_or_missing_name_is_listed_with_every_other_problem(
    cli: Cli, tmp_path: Path, name: str | None, problem: str
) -> None:
    broken: dict[str, Any] = {
        "steps": [{"id": "a", "prompt": "x", "dependsOn": ["zz"]},
                  {"id": "b", "type": "delay", "delay": "soon"}],
    }  # fmt: skip
    if name is not None:
        broken["name"] = name
    path = write(tmp_path, "broken.json", broken)
    for command in ("validate", "create"):
        result = await cli(command, str(path))
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines()[1:] == [
            problem,
            'steps[0].dependsOn[0]: unknown step "zz"',
            'steps[1].delay: invalid duration "soon": expected a number at "soon"',
        ]
    assert "no workflows yet" in await cli.ok("list")


async def test_a_failed_run_exits_1(cli: Cli, tmp_path: Path) -> None:
    failing = {"name": "failing", "steps": [{"id": "boom", "prompt": "Go [[fail]]"}]}
    await cli.ok("create", str(write(tmp_path, "failing.json", failing)))
    result = await cli("run", "failing", "--wait")
    assert result.exit_code == 1, result.output
    assert "step boom: error" in result.stdout
    assert "ended with status error" in result.stderr
    missing = await cli("run", "nope")
    assert missing.exit_code == 1 and "workflow nope not found" in missing.stderr


async def test_dry_run_and_shadow_from_the_cli(
    cli: Cli, tmp_path: Path, task_calls: list[dict[str, Any]]
) -> None:
    await cli.ok("create", str(write(tmp_path, "wf.json", RESEARCH)))
    out = await cli.ok("run", "research-and-summarize", "--dry-run", "--wait")
    assert "estimate:" in out and task_calls == []
    await cli.ok("run", "research-and-summarize", "--shadow", "--wait")
    assert [c["step_id"] for c in task_calls] == ["research", "summarize"]
    runs = json.loads(await cli.ok("runs", "--json"))
    assert [r["mode"] for r in runs] == ["dry_run"]  # the shadow run is not listed


async def test_versions_history_diff_rollback_and_delete(cli: Cli, tmp_path: Path) -> None:
    path = write(tmp_path, "wf.json", RESEARCH)
    await cli.ok("create", str(path))
    write(tmp_path, "wf.json", {**RESEARCH, "timeout": "1h"})
    assert "updated workflow research-and-summarize: version 2" in await cli.ok("create", str(path))
    assert "unchanged: still version 2" in await cli.ok("create", str(path))

    history = json.loads(await cli.ok("history", "research-and-summarize", "--json"))
    assert [(v["version"], v["action"]) for v in history] == [(2, "update"), (1, "create")]
    diff = await cli.ok("diff", "research-and-summarize@1", "2")
    assert "--- research-and-summarize@1" in diff and "+++ research-and-summarize@2" in diff
    assert '-  "timeout": "30m",' in diff and '+  "timeout": "1h",' in diff

    out = await cli.ok("rollback", "research-and-summarize", "1")
    assert "now version 3 (research-and-summarize@3)" in out
    shown = await cli.ok("show", "research-and-summarize")
    assert json.loads("{" + shown.partition("\n{")[2]) == RESEARCH
    assert "deleted workflow research-and-summarize" in await cli.ok("rm", "research-and-summarize")
    gone = await cli("show", "research-and-summarize")
    assert gone.exit_code == 1 and "not found" in gone.stderr
    # Made again after the delete: a create, numbered on from the kept versions.
    again = await cli.ok("create", str(path))
    assert "created workflow research-and-summarize: version 4" in again
