"""A 2xx answer the CLI cannot read is one `error:` line naming the route and the problem.

Every command that reads a gateway body (`baton workflow ...`, and the `/health` probes of
`baton status` and `baton up`) gets such an answer here: HTML from a proxy, truncated JSON,
a missing key, a key of another JSON type. None may end in a traceback, hang, or print a wrong
answer (a `diff` without its diff saying "no differences").
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from baton_cli.gateway_bodies import (
    NOTHING,
    RUN_ACCEPTED,
    RUN_DETAIL,
    VALIDATION,
    WORKFLOW_DOCUMENT,
    WORKFLOW_SAVED,
    Shape,
    UnreadableBody,
    read_body,
)
from baton_cli.health import http_healthy
from baton_cli.main import app
from baton_cli.processes import process_start
from baton_cli.state import UpState, write_state
from baton_cli.workflows import WorkflowCliDeps

from .fake_workflow_gateway import TOKEN, FakeGateway

URL = "http://gw.test"
NAME = "research-and-summarize"
DOCUMENT: dict[str, Any] = {"name": NAME, "steps": [{"id": "research", "prompt": "p"}]}
HTML = "<html><body>502 Bad Gateway</body></html>"
DEEP = "[" * 100_000 + "]" * 100_000
runner = CliRunner()


def _answer(status: int, body: Any) -> httpx.Response:
    if isinstance(body, str):
        return httpx.Response(status, text=body)
    return httpx.Response(status, json=body)


def _run_cli(
    tmp_path: Path, args: list[str], broken: tuple[str, str], answer: httpx.Response
) -> Result:
    """`baton workflow ARGS` against the fake gateway, whose `broken` route gives `answer`;
    `tmp_path` holds `wf.json` and is the data dir."""
    gateway = FakeGateway()
    gateway.store(DOCUMENT)
    (tmp_path / "wf.json").write_text(json.dumps(DOCUMENT))

    def handle(request: httpx.Request) -> httpx.Response:
        if (request.method, request.url.path) == broken:
            gateway.requests.append(request)
            return answer
        return gateway.handle(request)

    deps = WorkflowCliDeps(transport=httpx.MockTransport(handle), sleep=gateway.sleep)
    env = {"BATON_URL": URL, "BATON_TOKEN": TOKEN, "BATON_USER": None}
    argv = ["workflow", "--data-dir", str(tmp_path), *args]
    return runner.invoke(app, argv, obj=deps, env=env)


def _one_error_line(result: Result, route: str, problem: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: unexpected answer from the gateway to {route} ("), lines
    assert problem in lines[0], lines


WF = f"/workflows/{NAME}"
CASES = [
    # list / show / validate / create / delete
    (["list"], ("GET", "/workflows"), 200, {}, "(HTTP 200): workflows: missing"),
    (["ls"], ("GET", "/workflows"), 200, HTML, "the body is not JSON: '<html>"),
    (["list"], ("GET", "/workflows"), 200, "", "the body is empty"),
    (["list", "--json"], ("GET", "/workflows"), 200, {"workflows": [1]},
     "workflows[0]: expected an object, got 1"),
    (["show", NAME], ("GET", WF), 200, {"name": NAME}, "definition: missing"),
    (["show", NAME], ("GET", WF), 200, {"definition": {"steps": ["research"]}},
     'definition.steps[0]: expected an object, got "research"'),
    (["validate", NAME], ("POST", f"{WF}/validate"), 200, {"name": NAME}, "valid: missing"),
    (["validate", "wf.json"], ("POST", f"{WF}/validate"), 200, {"valid": False},
     "valid: expected true, got false"),
    (["create", "wf.json"], ("POST", "/workflows"), 201, {"name": NAME}, "version: missing"),
    (["rm", NAME], ("DELETE", WF), 200, '{"name": "resea', "the body is not JSON"),
    # run / runs / status / messages / cancel
    (["run", NAME], ("POST", f"{WF}/run"), 202, {"status": "running"}, "run_id: missing"),
    (["run", NAME], ("POST", f"{WF}/run"), 202, {"run_id": ""},
     'run_id: expected a non-empty string, got ""'),
    (["run", NAME, "--wait"], ("GET", "/workflow-runs/run-1"), 200,
     {"run_id": "run-1", "steps": []}, "status: missing"),
    (["runs"], ("GET", "/workflow-runs"), 200, {"runs": None},
     "runs: expected an array, got null"),
    (["runs", NAME], ("GET", f"{WF}/runs"), 200, {"count": 0}, "runs: missing"),
    (["status", "r1"], ("GET", "/workflow-runs/r1"), 200, '{"run_id": "r1", "sta',
     "the body is not JSON"),
    (["status", "r1"], ("GET", "/workflow-runs/r1"), 200, DEEP, "the body nests too deeply"),
    (["msgs", "r1"], ("GET", "/workflow-runs/r1"), 200,
     {"run_id": "r1", "status": "success", "messages": [{"text": "hi"}, "oops"]},
     'messages[1]: expected an object, got "oops"'),
    (["cancel", "r1"], ("POST", "/workflow-runs/r1/cancel"), 202, {"run_id": "r1"},
     "status: missing"),
    # history / rollback / diff
    (["history", NAME], ("GET", f"{WF}/versions"), 200, {"versions": {"1": {}}},
     "versions: expected an array, got an object"),
    (["rollback", NAME, "1"], ("POST", f"{WF}/rollback"), 200, {"name": NAME},
     "version: missing"),
    (["diff", f"{NAME}@1", "2"], ("GET", f"/workflow-versions/{NAME}@1/diff/{NAME}@2"), 200,
     {"from": f"{NAME}@1", "to": f"{NAME}@2"}, "diff: missing"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "route", "status", "body", "problem"), CASES)
def test_a_body_the_cli_cannot_read_is_one_error_line_naming_the_route(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    route: tuple[str, str],
    status: int,
    body: Any,
    problem: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = _run_cli(tmp_path, args, route, _answer(status, body))
    method, path = route
    _one_error_line(result, f"{method} {URL}{path}", problem)


def test_an_error_answer_nested_too_deeply_is_still_one_line(tmp_path: Path) -> None:
    result = _run_cli(tmp_path, ["list"], ("GET", "/workflows"), _answer(500, DEEP))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: HTTP 500 http_500: [[[") and "Traceback" not in (
        result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            httpx.Response(
                404, html="<!DOCTYPE html>\n<html>\n<body>\n<h1>404</h1>\n</body></html>"
            ),
            "error: HTTP 404 http_404: Not Found (an HTML page, not the gateway's answer) "
            "(no such route on the gateway: is --url right?)",
        ),
        (
            httpx.Response(413, text="request\nentity\n  too large\n"),
            "error: HTTP 413 http_413: request entity too large",
        ),
    ],
)
def test_an_answer_without_the_gateways_error_body_is_one_line(
    tmp_path: Path, answer: httpx.Response, said: str
) -> None:
    # A proxy's HTML page was printed as it came: a screenful of markup (found by a review
    # of the CLI).
    result = _run_cli(tmp_path, ["list"], ("GET", "/workflows"), answer)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [said]


def test_keys_a_newer_gateway_adds_are_read_past(tmp_path: Path) -> None:
    body = {"workflows": [{"name": NAME, "owner": "x"}], "next_page": None, "total": 1}
    result = _run_cli(tmp_path, ["list", "--json"], ("GET", "/workflows"), _answer(200, body))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == body["workflows"]


def test_a_route_that_answers_nothing_reads_as_an_empty_object() -> None:
    request = httpx.Request("DELETE", f"{URL}/workflows/x")
    assert read_body(httpx.Response(204, request=request), NOTHING) == {}
    with pytest.raises(UnreadableBody, match=r"DELETE http://gw.test/workflows/x \(HTTP 200\)"):
        read_body(httpx.Response(200, text="<html>", request=request), RUN_DETAIL)


@pytest.mark.parametrize(
    ("shape", "body", "problem"),
    [
        (WORKFLOW_SAVED, {"name": NAME, "version": "1", "version_id": "v"},
         'version: expected an integer, got "1"'),
        (WORKFLOW_SAVED, {"name": NAME, "version": True, "version_id": "v"},
         "version: expected an integer, got true"),
        (VALIDATION, {"valid": 1}, "valid: expected true or false, got 1"),
        (RUN_ACCEPTED, {"run_id": "  "}, 'run_id: expected a non-empty string, got "  "'),
        (WORKFLOW_DOCUMENT, {"definition": {"steps": [{"dependsOn": ["a", 2]}]}},
         "definition.steps[0].dependsOn[1]: expected a string, got 2"),
        (WORKFLOW_DOCUMENT, {"definition": {"steps": [{"parallel": ["a"]}]}},
         'definition.steps[0].parallel[0]: expected an object, got "a"'),
        (RUN_DETAIL, [], "the body: expected an object, got an array"),
    ],
)  # fmt: skip
def test_no_value_is_taken_for_another_json_type(shape: Shape, body: Any, problem: str) -> None:
    request = httpx.Request("GET", f"{URL}/x")
    with pytest.raises(UnreadableBody) as caught:
        read_body(httpx.Response(200, json=body, request=request), shape)
    assert str(caught.value).endswith(f"(HTTP 200): {problem}")


def test_a_body_is_read_as_decoded() -> None:
    body = {"status": "running", "run_id": "r1", "estimate": None, "new": {"b": 1, "a": 2}}
    request = httpx.Request("GET", f"{URL}/workflow-runs/r1")
    read = read_body(httpx.Response(200, json=body, request=request), RUN_DETAIL)
    assert list(read.items()) == list(body.items())


# --- the /health probes of `baton status` and `baton up` --------------------------------


HEALTHY = {"status": "ok", "checks": {"nats": True}}
NOT_HEALTH = [
    (HTML, "the body is not JSON: '<html>"),
    ({"healthy": True}, "status: missing"),
    ({"status": "unavailable", "checks": {}}, 'status: expected "ok", got "unavailable"'),
]


def _status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: httpx.Response) -> Result:
    me = os.getpid()
    started = process_start(me)
    gateway = "http://127.0.0.1:1"
    write_state(tmp_path, UpState(pid=me, gateway_url=gateway, nats_url="nats://127.0.0.1:2",
                                  started={str(me): started} if started else {}))  # fmt: skip
    answer.request = httpx.Request("GET", f"{gateway}/health")
    monkeypatch.setattr(httpx, "get", lambda url, **_: answer)
    return runner.invoke(app, ["status", "--data-dir", str(tmp_path)])


@pytest.mark.parametrize(("body", "problem"), NOT_HEALTH)
def test_status_does_not_take_another_200_for_a_healthy_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: Any, problem: str
) -> None:
    result = _status(tmp_path, monkeypatch, _answer(200, body))
    _one_error_line(result, "GET http://127.0.0.1:1/health", problem)
    assert "Baton is up" not in result.stdout


def test_status_says_up_on_the_gateways_health_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _status(tmp_path, monkeypatch, _answer(200, HEALTHY))
    assert result.exit_code == 0, result.stderr
    assert "Baton is up: http://127.0.0.1:1" in result.stdout


def test_status_of_a_gateway_without_nats_says_nats_is_what_is_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # While NATS was down (killed, restarting) it said only "unhealthy: HTTP 503".
    unhealthy = {"status": "unavailable", "checks": {"nats": False}}
    result = _status(tmp_path, monkeypatch, _answer(503, unhealthy))
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "error: gateway http://127.0.0.1:1/health is unhealthy: HTTP 503; "
        "not connected to NATS at nats://127.0.0.1:2"
    ]


def test_status_of_an_unhealthy_gateway_with_no_body_says_the_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _status(tmp_path, monkeypatch, _answer(502, HTML))
    assert result.stderr.strip().splitlines() == [
        "error: gateway http://127.0.0.1:1/health is unhealthy: HTTP 502"
    ]


@pytest.mark.parametrize(
    ("status", "body", "healthy"),
    [(200, HEALTHY, True), *((200, body, False) for body, _ in NOT_HEALTH), (503, HEALTHY, False)],
)
async def test_the_up_probe_is_healthy_only_on_the_gateways_health_body(
    status: int, body: Any, healthy: bool
) -> None:
    transport = httpx.MockTransport(lambda _request: _answer(status, body))
    async with httpx.AsyncClient(transport=transport) as client:
        assert await http_healthy(client, f"{URL}/health") is healthy


@pytest.mark.parametrize(
    ("args", "route"),
    [(["show", NAME], ("GET", WF)), (["status", "r1"], ("GET", "/workflow-runs/r1"))],
)
def test_a_404_that_names_nothing_is_a_wrong_url_not_a_missing_workflow(
    tmp_path: Path, args: list[str], route: tuple[str, str]
) -> None:
    # A --url with a wrong prefix got the gateway's plain 404 for an unknown route, and the
    # CLI said "workflow research-and-summarize not found" (found by a review of the CLI).
    unknown_route = {"error": {"code": "not_found", "message": "Not Found", "details": []}}
    result = _run_cli(tmp_path, args, route, _answer(404, unknown_route))
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "error: HTTP 404 not_found: Not Found (no such route on the gateway: is --url right?)"
    ]
