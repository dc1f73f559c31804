"""`baton workflow` against an in-memory gateway speaking the DAG HTTP contract."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
import yaml  # type: ignore[import-untyped]
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner, Result

from baton_auth.tokens import mint_token, user_id_problem
from baton_cli.gateway_client import GatewayClient, GatewayError
from baton_cli.main import app
from baton_cli.state import UpState, write_state
from baton_cli.workflow_json import print_json
from baton_cli.workflow_render import steps_table
from baton_cli.workflow_session import default_user
from baton_cli.workflow_wait import (
    POLL_INTERVAL,
    UNREACHABLE_GRACE_SECONDS,
    UNREACHABLE_INTERVAL,
    RunPoller,
)
from baton_cli.workflows import WorkflowCliDeps

from .fake_workflow_gateway import SECRET, T0, TOKEN, FakeGateway, public_run

URL = "http://gw.test"
runner = CliRunner()

RESEARCH: dict[str, Any] = {
    "name": "research-and-summarize",
    "description": "Gather information and write a summary",
    "variables": {"topic": "AI agents"},
    "timeout": "30m",
    "steps": [
        {"id": "research", "agent": "hisui",
         "prompt": "Search and organize the latest developments in {{topic}}"},
        {"id": "summarize", "agent": "kohaku",
         "prompt": "Write a 300-word summary based on the following:\n{{steps.research.output}}",
         "dependsOn": ["research"]},
    ],
}  # fmt: skip
INVALID: dict[str, Any] = {
    "name": "bad name!",
    "steps": [
        {"id": "a", "prompt": "x", "dependsOn": ["reserch"], "onError": "explode"},
    ],
}

Invoke = Callable[..., Result]


@pytest.fixture
def gateway() -> FakeGateway:
    return FakeGateway()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def cli(gateway: FakeGateway, data_dir: Path) -> Invoke:
    def invoke(*args: str, env: dict[str, str | None] | None = None, **deps: Any) -> Result:
        obj = WorkflowCliDeps(**{"transport": gateway.transport, "sleep": gateway.sleep, **deps})
        base: dict[str, str | None] = {
            "BATON_URL": URL, "BATON_TOKEN": TOKEN, "BATON_USER": None, "BATON_JWT_SECRET": None,
        }  # fmt: skip
        argv = ["workflow", "--data-dir", str(data_dir), *args]
        return runner.invoke(app, argv, obj=obj, env={**base, **(env or {})})

    return invoke


def write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    if name.endswith((".yaml", ".yml")):
        path.write_text(yaml.safe_dump(document))
    else:
        path.write_text(json.dumps(document))
    return path


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def terminal() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, width=140)


# --- list / show ------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["list", "ls"])
def test_list_and_its_alias_show_every_workflow(
    cli: Invoke, gateway: FakeGateway, command: str
) -> None:
    gateway.store(RESEARCH)
    gateway.store({**RESEARCH, "name": "other", "description": "Another one"})
    out = ok(cli(command))
    assert "research-and-summarize@1" in out and "other@1" in out
    assert "Gather information and write a summary" in out


def test_list_json_is_the_gateways_list(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    listed = json.loads(ok(cli("list", "--json")))
    assert [(w["name"], w["version"], w["steps"]) for w in listed] == [
        ("research-and-summarize", 1, 2)
    ]


def test_list_reads_every_page(cli: Invoke, gateway: FakeGateway) -> None:
    """A page holds about 512 KiB of workflows: long descriptions come on several pages, and
    `list` printed the first page's alone."""
    for name in ("a", "b", "c"):
        gateway.store({**RESEARCH, "name": name})
    gateway.list_page = 2
    listed = json.loads(ok(cli("list", "--json")))
    assert [w["name"] for w in listed] == ["a", "b", "c"]
    asked = [dict(r.url.params) for r in gateway.requests[-2:]]
    assert asked == [{}, {"after": "b"}]


def test_list_with_no_workflows_says_how_to_add_one(cli: Invoke) -> None:
    assert "baton workflow create FILE" in ok(cli("list"))


def test_show_prints_a_summary_then_the_definition_json(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    out = ok(cli("show", "research-and-summarize"))
    summary, _, definition = out.partition("\n{")
    assert "version:     1 (research-and-summarize@1)" in summary
    assert "topic='AI agents'" in summary and "summarize" in summary and "research" in summary
    assert json.loads("{" + definition) == RESEARCH


def test_show_summarises_the_budget_and_notifications_too(
    cli: Invoke, gateway: FakeGateway
) -> None:
    # budget, onSuccess and onFailure were only in the JSON below the summary
    gateway.store({
        **RESEARCH, "variables": {"topic": "", "tone": "dry"}, "budget": 2.5,
        "onSuccess": "Published: {{steps.summarize.output}}",
        "onFailure": "Failed:\n{{steps.summarize.error}}",
    })  # fmt: skip
    summary = ok(cli("show", "research-and-summarize")).partition("\n{")[0].splitlines()
    assert summary[summary.index("  timeout:     30m") :][:5] == [
        "  timeout:     30m",
        "  budget:      $2.5",
        "  variables:   topic (required), tone='dry'",
        "  onSuccess:   Published: {{steps.summarize.output}}",
        "  onFailure:   Failed:\\n{{steps.summarize.error}}",  # one line, as in the JSON
    ]
    gateway.store({"name": "free", "budget": 0, "steps": [{"id": "a", "prompt": "x"}]})
    assert "  budget:      $0" in ok(cli("show", "free")).splitlines()  # no agent call at all


def test_show_lists_the_sub_steps_of_a_parallel_step(cli: Invoke, gateway: FakeGateway) -> None:
    # The table listed top-level steps only: a parallel step's sub-steps, which run agents and
    # can be named in templates, did not appear in the summary at all.
    gateway.store({"name": "fan", "steps": [
        {"id": "gather", "type": "parallel", "parallel": [
            {"id": "search-papers", "agent": "hisui", "prompt": "papers"},
            {"id": "search-code", "type": "skill", "skill": "web-search"},
        ]},
        {"id": "sum", "agent": "kohaku", "prompt": "x", "dependsOn": ["gather"]},
    ]})  # fmt: skip
    summary = ok(cli("show", "fan")).partition("\n{")[0].splitlines()
    assert "  steps (2, and 2 sub-steps):" in summary
    rows = [line.split() for line in summary[summary.index("  steps (2, and 2 sub-steps):") + 2 :]]
    assert rows == [
        ["gather", "parallel", "-", "-"],
        ["search-papers", "dispatch", "hisui", "(in", "gather)"],
        ["search-code", "skill", "-", "(in", "gather)"],
        ["sum", "dispatch", "kohaku", "gather"],
    ]


def test_show_unknown_workflow_is_not_found(cli: Invoke) -> None:
    result = cli("show", "nope")
    assert result.exit_code == 1
    assert "workflow nope not found" in result.stderr
    no_traceback(result)


@pytest.mark.parametrize(
    "args", [["show", "bad name"], ["runs", "x/y"], ["delete", "../etc"], ["show", "abc\n"]]
)
def test_a_bad_workflow_name_is_a_usage_error(
    cli: Invoke, gateway: FakeGateway, args: list[str]
) -> None:
    result = cli(*args)
    assert result.exit_code == 2 and "only letters, digits, - and _" in result.stderr
    assert gateway.requests == []


# --- validate -----------------------------------------------------------------------------


def test_validate_a_json_file_posts_the_document(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    path = write(tmp_path, "my-workflow.json", RESEARCH)
    out = ok(cli("validate", str(path)))
    assert "workflow research-and-summarize is valid" in out
    sent = gateway.requests[-1]
    assert (sent.method, sent.url.path) == ("POST", "/workflows/research-and-summarize/validate")
    assert json.loads(sent.content) == RESEARCH
    assert gateway.versions == {}  # validating stores nothing


@pytest.mark.parametrize("suffix", [".yaml", ".yml"])
def test_validate_reads_yaml_files(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, suffix: str
) -> None:
    path = write(tmp_path, f"wf{suffix}", RESEARCH)
    ok(cli("validate", str(path)))
    assert json.loads(gateway.requests[-1].content) == RESEARCH


def test_validate_prints_every_problem_one_per_line(cli: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", {**INVALID, "name": "bad"})
    result = cli("validate", str(path))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert 'steps[0].dependsOn[0]: unknown step "reserch"' in lines
    assert "steps[0].onError: must be one of stop, skip, retry" in lines
    assert "(2 problems)" in lines[0]


def test_validate_a_stored_workflow_by_name_sends_no_body(
    cli: Invoke, gateway: FakeGateway
) -> None:
    gateway.store(RESEARCH)
    assert "is valid" in ok(cli("validate", "research-and-summarize"))
    assert gateway.requests[-1].content == b""


def test_validate_unknown_name_is_not_found(cli: Invoke) -> None:
    result = cli("validate", "ghost")
    assert result.exit_code == 1 and "workflow ghost not found" in result.stderr


@pytest.mark.parametrize(
    ("content", "expected"),
    [("{not json", "not valid JSON"), ('["a list"]', "must be an object, got list")],
)  # fmt: skip
def test_validate_a_bad_file_is_a_usage_error_naming_the_file(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, content: str, expected: str
) -> None:
    path = tmp_path / "wf.json"
    path.write_text(content)
    result = cli("validate", str(path))
    assert result.exit_code == 2
    assert str(path) in result.stderr and expected in result.stderr
    assert gateway.requests == []


@pytest.mark.parametrize("command", ["validate", "create"])
@pytest.mark.parametrize("name", [None, "bad name", "n" * 129, 7])
def test_a_bad_or_missing_name_is_listed_with_every_other_problem(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, command: str, name: Any
) -> None:
    document = {k: v for k, v in INVALID.items() if k != "name"}
    if name is not None:
        document["name"] = name
    path = write(tmp_path, "bad.json", document)
    result = cli(command, str(path))
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    subject = f"workflow in {path}" if command == "create" else f"workflow {path}"
    assert lines[0] == f"error: {subject} is invalid (3 problems):"
    assert lines[1:] == [
        "name: required; letters, digits, - and _ only",
        'steps[0].dependsOn[0]: unknown step "reserch"',
        "steps[0].onError: must be one of stop, skip, retry",
    ]
    assert gateway.versions == {}
    assert [r.url.path for r in gateway.requests] == ["/workflows/unnamed/validate"]


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("e400.json", '{"name": "x", "budget": 1e400, "steps": []}', "budget is inf"),
        ("nan.json", '{"name": "x", "steps": [{"id": "a", "n": NaN}]}', "steps[0].n is nan"),
        ("inf.yaml", "name: x\nlimits:\n  budget: .inf\n", "limits.budget is inf"),
        ("neg.json", '{"name": "x", "steps": [-Infinity]}', "steps[0] is -inf"),
    ],
)
def test_a_number_json_cannot_hold_is_a_usage_error_not_a_traceback(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, name: str, content: str, problem: str
) -> None:
    # Python's readers took NaN, Infinity and 1e400, and the request that sent them raised
    # a traceback (found by a review of the CLI).
    path = tmp_path / name
    path.write_text(content)
    for command in ("validate", "create"):
        result = cli(command, str(path))
        assert result.exit_code == 2, result.output
        assert f"{path}: {problem}: not a finite number" in result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert gateway.requests == []


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("deep.json", '{"name": "x", "steps": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        ("deep.yaml", "name: x\nsteps: " + "[" * 5_000 + "]" * 5_000),
        ("loop.yaml", "name: x\nsteps: &loop [*loop]\n"),
    ],
)
def test_a_file_nested_too_deeply_is_a_usage_error_not_a_traceback(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, name: str, content: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    result = cli("validate", str(path))
    assert result.exit_code == 2, result.output
    assert f"{path}: nested too deeply" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert gateway.requests == []


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "big.json",
            '{"name": "x", "steps": [{"id": "a", "prompt": "p", "retryMax": 1' + "0" * 5000 + "}]}",
            "not valid JSON: a number has more than 4300 digits",
        ),
        ("big.yaml", "name: x\nretries: 1" + "0" * 5000, "not valid YAML: a number has more"),
        ("date.yaml", "name: x\nwhen: !!timestamp 2024-13-45\n", "not valid YAML: month must be"),
    ],
)
def test_a_value_python_cannot_build_is_a_usage_error_not_a_traceback(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, name: str, content: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    for command in ("validate", "create"):
        result = cli(command, str(path))
        assert result.exit_code == 2, result.output
        assert f"{path}: {expected}" in result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert gateway.requests == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("name: x\nvariables: {null: y}\n", "variables.null: a key must be a string (got null)"),
        ("name: x\nsteps: [{id: a, 1.5: y}]\n", "steps[0].1.5: a key must be a string (got 1.5)"),
        ("name: x\ntrue: y\n", "true: a key must be a string (got true); quote it in YAML"),
    ],
)
def test_a_yaml_key_that_is_no_string_is_a_usage_error(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, content: str, expected: str
) -> None:
    # Sent as JSON, it became the text "null" (or "1.5", "true") without a word, where the
    # gateway, sent the same YAML, refuses it.
    path = tmp_path / "wf.yaml"
    path.write_text(content)
    for command in ("validate", "create"):
        result = cli(command, str(path))
        assert result.exit_code == 2, result.output
        assert f"{path}: {expected}" in result.stderr
    assert gateway.requests == []


def test_yaml_aliases_past_the_limit_are_refused_before_they_are_written_out(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    # A few hundred bytes of nested aliases are 100,000 strings written out; three more levels
    # held 3.7 GB for 100 s before the gateway refused the body as a 413.
    levels = ['a: &a ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx"]']
    for i, name in enumerate("bcdefg"):
        prev = "abcdefg"[i]
        levels.append(f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]")
    path = tmp_path / "laughs.yaml"
    path.write_text("name: x\n" + "\n".join(levels) + "\nsteps: [{id: s, prompt: hi}]\n")
    for command in ("validate", "create"):
        result = cli(command, str(path))
        assert result.exit_code == 2, result.output
        assert "its YAML aliases written out; a workflow may have at most 524,288" in result.stderr
    assert gateway.requests == []


def test_validate_bad_yaml_names_the_line(cli: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text("name: x\nsteps: [\n")
    result = cli("validate", str(path))
    assert result.exit_code == 2 and "not valid YAML" in result.stderr and "line" in result.stderr


def test_yaml_dates_are_sent_as_text(cli: Invoke, gateway: FakeGateway, tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    dates = "released: 2025-01-31\nwhen: 2025-01-31T10:00:00Z\nodd: 2024-13-45\n"
    path.write_text(yaml.safe_dump(RESEARCH) + dates)
    ok(cli("validate", str(path)))
    sent = json.loads(gateway.requests[-1].content)
    # As written: a timestamp is not respelled, and a date that does not exist is no traceback.
    assert (sent["released"], sent["when"], sent["odd"]) == (
        "2025-01-31",
        "2025-01-31T10:00:00Z",
        "2024-13-45",
    )


def test_yaml_without_pyyaml_says_what_to_install(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)
    result = cli("validate", str(write(tmp_path, "wf.json", RESEARCH).rename(tmp_path / "w.yml")))
    assert result.exit_code == 2 and "reading YAML needs PyYAML" in result.stderr


def test_validate_a_missing_file_that_is_no_name_is_a_usage_error(cli: Invoke) -> None:
    result = cli("validate", "missing.json")
    assert result.exit_code == 2 and "missing.json: no such file" in result.stderr


# --- create / delete ----------------------------------------------------------------------


def test_create_validates_then_stores_and_prints_the_version(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    path = write(tmp_path, "wf.json", RESEARCH)
    out = ok(cli("create", str(path)))
    assert "created workflow research-and-summarize: version 1 (research-and-summarize@1)" in out
    assert [r.url.path for r in gateway.requests] == [
        "/workflows/research-and-summarize/validate", "/workflows",
    ]  # fmt: skip
    assert "unchanged: still version 1" in ok(cli("create", str(path)))
    write(tmp_path, "wf.json", {**RESEARCH, "timeout": "1h"})
    assert "updated workflow research-and-summarize: version 2" in ok(cli("create", str(path)))


UNCHECKED = "the agents were not checked: the agent-runner did not answer (no responders ...)"


def test_what_the_gateway_could_not_check_is_a_warning_on_stderr(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    gateway.warnings = [UNCHECKED]
    path = write(tmp_path, "wf.json", RESEARCH)
    created = cli("create", str(path))
    assert "created workflow research-and-summarize" in ok(created)
    assert created.stderr.splitlines() == [f"warning: {UNCHECKED}"]  # not once per request
    for target in (str(path), "research-and-summarize"):
        validated = cli("validate", target)
        assert "is valid" in ok(validated)
        assert validated.stderr.splitlines() == [f"warning: {UNCHECKED}"]
    gateway.warnings = []
    assert cli("validate", str(path)).stderr == ""


def test_create_still_stores_when_the_gateway_validates_only_stored_names(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    gateway.validates_stored_only = True
    assert "created workflow" in ok(cli("create", str(write(tmp_path, "wf.json", RESEARCH))))
    assert gateway.versions["research-and-summarize"] == [RESEARCH]


def test_create_from_yaml(cli: Invoke, gateway: FakeGateway, tmp_path: Path) -> None:
    ok(cli("create", str(write(tmp_path, "wf.yaml", RESEARCH))))
    assert gateway.versions["research-and-summarize"] == [RESEARCH]


def test_create_an_invalid_workflow_stores_nothing(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    path = write(tmp_path, "wf.json", {**INVALID, "name": "bad"})
    result = cli("create", str(path))
    assert result.exit_code == 2
    assert 'steps[0].dependsOn[0]: unknown step "reserch"' in result.stderr.splitlines()
    assert gateway.versions == {}
    assert all(r.url.path != "/workflows" for r in gateway.requests)


def test_create_a_missing_file_is_a_usage_error(cli: Invoke, gateway: FakeGateway) -> None:
    result = cli("create", "nowhere.json")
    assert result.exit_code == 2 and "nowhere.json: no such file" in result.stderr
    assert gateway.requests == []


def test_create_a_folder_says_it_is_a_folder(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    (tmp_path / "flows.json").mkdir()
    result = cli("create", str(tmp_path / "flows.json"))
    assert result.exit_code == 2 and "flows.json: a folder, not a file" in result.stderr
    assert gateway.requests == []


def test_a_json_file_saved_with_a_byte_order_mark_is_read(cli: Invoke, tmp_path: Path) -> None:
    # Windows editors save "UTF-8 with BOM"; json refused it ("Unexpected UTF-8 BOM").
    path = tmp_path / "wf.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(RESEARCH).encode())
    result = cli("validate", str(path))
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("command", ["delete", "rm"])
def test_delete_and_its_alias(cli: Invoke, gateway: FakeGateway, command: str) -> None:
    gateway.store(RESEARCH)
    assert "deleted workflow research-and-summarize" in ok(cli(command, "research-and-summarize"))
    assert gateway.deleted == {"research-and-summarize"}
    again = cli(command, "research-and-summarize")
    assert again.exit_code == 1 and "workflow research-and-summarize not found" in again.stderr


# --- run ----------------------------------------------------------------------------------


def test_run_sends_vars_and_prints_the_run_id(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    out = ok(cli("run", "research-and-summarize", "--var", "topic=LLM safety=yes"))
    assert "started run run-1 of research-and-summarize (research-and-summarize@1, live)" in out
    assert "baton workflow status run-1" in out
    body = json.loads(gateway.requests[-1].content)
    assert body == {"variables": {"topic": "LLM safety=yes"}, "mode": "live"}


@pytest.mark.parametrize(("flag", "mode"), [("--dry-run", "dry_run"), ("--shadow", "shadow")])
def test_run_modes(cli: Invoke, gateway: FakeGateway, flag: str, mode: str) -> None:
    gateway.store(RESEARCH)
    ok(cli("run", "research-and-summarize", flag))
    assert json.loads(gateway.requests[-1].content)["mode"] == mode


def test_dry_run_and_shadow_are_mutually_exclusive(cli: Invoke, gateway: FakeGateway) -> None:
    result = cli("run", "research-and-summarize", "--dry-run", "--shadow")
    assert result.exit_code == 2
    assert "--dry-run and --shadow cannot be used together" in result.stderr
    assert gateway.requests == []


@pytest.mark.parametrize(
    ("pairs", "message"),
    [(["topic"], "--var: expected key=value, got 'topic'"),
     (["=x"], "--var: expected key=value, got '=x'"),
     (["topic=a", "topic=b"], "--var: 'topic' is given twice")],
)  # fmt: skip
def test_a_bad_var_is_a_usage_error_naming_it(
    cli: Invoke, gateway: FakeGateway, pairs: list[str], message: str
) -> None:
    args = [arg for pair in pairs for arg in ("--var", pair)]
    result = cli("run", "research-and-summarize", *args)
    assert result.exit_code == 2 and message in result.stderr
    assert gateway.requests == []


# What the shell passes for a byte that is not UTF-8 (a Latin-1 terminal, a pasted file name).
NOT_UTF8 = b"\xff".decode("utf-8", "surrogateescape")


@pytest.mark.parametrize(
    "args",
    [
        ["run", "research-and-summarize", "--var", f"topic=caf{NOT_UTF8}"],
        ["status", f"run-{NOT_UTF8}"],
        ["msgs", f"run-{NOT_UTF8}"],
        ["cancel", "run-1", "--reason", f"caf{NOT_UTF8}"],
    ],
    ids=["var", "status", "msgs", "cancel-reason"],
)
def test_an_argument_that_is_not_utf8_is_a_usage_error_not_a_traceback(
    cli: Invoke, gateway: FakeGateway, args: list[str]
) -> None:
    gateway.store(RESEARCH)
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert "holds a byte that is not UTF-8 text" in result.stderr
    no_traceback(result)
    assert gateway.requests == []


@pytest.mark.parametrize("command", ["status", "msgs", "cancel"])
@pytest.mark.parametrize("run_id", ["../workflows/rs", ".", "..", "", "a b", "r\n", "r" * 65])
def test_a_run_id_not_of_its_form_is_a_usage_error_and_nothing_is_sent(
    cli: Invoke, gateway: FakeGateway, command: str, run_id: str
) -> None:
    # `status ../workflows/rs` sent GET /workflow-runs/../workflows/rs, which answered "no such
    # route on the gateway: is --url right?" (found by a probe of the CLI).
    result = cli(command, run_id)
    assert result.exit_code == 2, result.output
    assert "a run id is 1 to 64 letters, digits, '-' or '_'" in result.stderr
    no_traceback(result)
    assert gateway.requests == []


def test_run_with_a_missing_or_unknown_variable_lists_both(
    cli: Invoke, gateway: FakeGateway
) -> None:
    gateway.store({**RESEARCH, "variables": {"topic": ""}})
    result = cli("run", "research-and-summarize", "--var", "colour=blue")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert "variables.topic: required variable has no value" in lines
    assert "variables.colour: unknown variable" in lines


def test_run_unknown_workflow_is_not_found(cli: Invoke) -> None:
    result = cli("run", "ghost")
    assert result.exit_code == 1 and "workflow ghost not found" in result.stderr


# --- run --wait ---------------------------------------------------------------------------


def test_wait_shows_each_step_and_ends_with_the_outputs(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    out = ok(cli("run", "research-and-summarize", "--wait"))
    lines = out.splitlines()
    assert lines.index("step research: running (attempt 1)") < lines.index(
        "step research: success (attempt 1, 1.5s)"
    ) < lines.index("step summarize: running (attempt 1)")  # fmt: skip
    assert "run run-1 of research-and-summarize (research-and-summarize@1): success" in out
    assert "  research [success]: [research] done: Search and organize the latest" in out
    assert set(gateway.sleeps) == {POLL_INTERVAL}


FOUR_STEPS: dict[str, Any] = {
    "name": "four",
    "steps": [{"id": f"s{i}", "prompt": f"step {i}"} for i in range(4)],
}


def _run_reads(gateway: FakeGateway) -> list[str | None]:
    """`steps_after` of each read of a run's detail, in order (None: its first page)."""
    return [
        r.url.params.get("steps_after")
        for r in gateway.requests
        if r.method == "GET" and r.url.path.startswith("/workflow-runs/")
    ]


@pytest.mark.parametrize("terminal_console", [False, True])
def test_wait_on_a_run_in_pages_polls_its_first_page_and_reads_the_rest_once(
    cli: Invoke, gateway: FakeGateway, terminal_console: bool
) -> None:
    # Every poll, three times a second, read every page of the run: for a large run, many
    # requests each time, where the first page's status says whether it has ended.
    gateway.store(FOUR_STEPS)
    gateway.steps_per_page = 1
    deps = {"console": terminal()} if terminal_console else {}
    out = ok(cli("run", "four", "--wait", **deps))
    if terminal_console:
        out = deps["console"].file.getvalue()  # type: ignore[attr-defined]
    reads = _run_reads(gateway)
    assert reads[-3:] == ["s0", "s1", "s2"]  # once, after the poll that saw the end
    assert set(reads[:-3]) == {None} and len(reads) > 4
    for i in range(4):
        assert f"  s{i} [success]: [s{i}] done: step {i}" in out


def test_wait_on_a_run_in_pages_prints_what_it_did_in_one(
    cli: Invoke, gateway: FakeGateway
) -> None:
    gateway.store(FOUR_STEPS)
    whole = ok(cli("run", "four", "--wait"))
    paged_gateway = FakeGateway(steps_per_page=1)
    paged_gateway.store(FOUR_STEPS)
    obj = WorkflowCliDeps(transport=paged_gateway.transport, sleep=paged_gateway.sleep)
    argv = ["workflow", "--url", URL, "--token", TOKEN, "run", "four", "--wait"]
    paged = runner.invoke(app, argv, obj=obj)
    assert paged.exit_code == 0, paged.output
    # The run's outcome, from its line on; and the final line of each step.
    assert (
        paged.stdout[paged.stdout.index("run run-1 of four (four@1): ") :]
        == (whole[whole.index("run run-1 of four (four@1): ") :])
    )
    for i in range(4):
        assert f"step s{i}: success (attempt 1, 1.5s)" in paged.stdout.splitlines()


class _PagedRun:
    """A client of a run that has ended, in two pages; the rest of it is away `away` times."""

    def __init__(self, away: int) -> None:
        self.away = away
        self.first = {"run_id": "r", "status": "success", "steps": [{"id": "a"}],
                      "next_steps_after": "a", "more_steps": 1}  # fmt: skip

    def get_run_page(self, run_id: str, timeout: float | None = None) -> dict[str, Any]:
        return self.first

    def rest_of_run(
        self, run_id: str, first: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        if self.away:
            self.away -= 1
            raise GatewayError("cannot reach the gateway", status=503)
        return {**first, "steps": [*first["steps"], {"id": "b"}], "next_steps_after": None}


def test_reading_the_rest_of_an_ended_run_rides_out_a_gateway_restart() -> None:
    sleeps: list[float] = []
    poller = RunPoller(cast(GatewayClient, _PagedRun(away=3)), "r", sleeps.append)
    first = poller.next()
    assert [s["id"] for s in poller.whole(first)["steps"]] == ["a", "b"]
    assert sleeps == [UNREACHABLE_INTERVAL] * 3  # the first poll waits for nothing


def test_wait_shows_a_retry_as_a_new_attempt(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store({"name": "flaky", "steps": [{"id": "f", "prompt": "FLAKY", "onError": "retry"}]})
    out = ok(cli("run", "flaky", "--wait"))
    assert "step f: running (attempt 2)" in out.splitlines()


def test_wait_exits_1_when_the_run_fails(cli: Invoke, gateway: FakeGateway) -> None:
    steps = [{"id": "a", "prompt": "FAIL"}, {"id": "b", "prompt": "x", "dependsOn": ["a"]}]
    gateway.store({"name": "broken", "steps": steps})
    result = cli("run", "broken", "--wait")
    assert result.exit_code == 1
    assert "step a: error (attempt 1, 1.5s, agent hisui failed: model refused)" in result.stdout
    assert "a [error]: error: agent hisui failed: model refused" in result.stdout
    assert "b [skipped]" in result.stdout
    assert "run run-1 ended with status error" in result.stderr


def test_wait_names_a_budget_stop(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store({"name": "pricey", "steps": [{"id": "a", "prompt": "OVER_BUDGET"}]})
    result = cli("run", "pricey", "--wait")
    assert result.exit_code == 1
    budget = "step cost $0.5000 exceeded its budget $0.1000"
    assert f"step a: error (budget_exceeded, attempt 1, 1.5s, {budget})" in result.stdout
    assert f"a [error]: budget_exceeded: {budget}" in result.stdout


def test_wait_on_a_dry_run_prints_the_estimate(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    out = ok(cli("run", "research-and-summarize", "--dry-run", "--wait"))
    assert "estimate: 1200 tokens in, 800 tokens out, $0.0123" in out
    assert ", estimated cost $" in out and ", cost $" not in out  # nothing was spent


def test_runs_marks_a_dry_runs_cost_as_an_estimate(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    _finished_run(gateway, "live-1", "research-and-summarize", cost_usd=0.25)
    _finished_run(gateway, "dry-1", "research-and-summarize", mode="dry_run", cost_usd=0.0123)
    rows = ok(cli("runs", "research-and-summarize")).splitlines()
    assert any("dry-1" in row and "~$0.0123" in row for row in rows), rows
    assert any("live-1" in row and "$0.2500" in row and "~" not in row for row in rows), rows


def test_a_small_cost_shows_its_first_digits_wherever_the_cli_prints_one(
    cli: Invoke, gateway: FakeGateway
) -> None:
    """The scripted model's draft-and-review run costs $0.0000314: at four decimals, `$0.0000`."""
    gateway.store(RESEARCH)
    gateway.run_cost = gateway.estimate_cost = 3.14e-05
    out = ok(cli("run", "research-and-summarize", "--wait"))
    assert any(line.endswith("success in 1.5s, cost $0.000031") for line in out.splitlines()), out
    out = ok(cli("run", "research-and-summarize", "--dry-run", "--wait"))
    assert "estimated cost $0.000031" in out and "tokens out, $0.000031" in out, out
    rows = ok(cli("runs")).splitlines()
    assert any(row.startswith("run-1 ") and row.endswith(" $0.000031") for row in rows), rows
    assert any(row.startswith("run-2 ") and row.endswith(" ~$0.000031") for row in rows), rows
    # JSON keeps the number, written as the decimal it is rather than as 3.14e-05.
    status = ok(cli("status", "run-1"))
    assert '  "cost_usd": 0.0000314,' in status.splitlines(), status
    assert json.loads(status) == public_run(gateway.runs["run-1"])
    assert '"cost_usd": 0.0000314' in ok(cli("runs", "--json"))


def test_json_writes_a_small_number_as_its_decimal_and_nothing_else_changes() -> None:
    value = {"note": '"cost_usd": 1e-05,', "costs": [1e-05, 2.5e-07], "big": 1e20, "half": 0.5}
    console = Console(file=io.StringIO(), width=40)
    print_json(console, value)
    written = console.file.getvalue()  # type: ignore[attr-defined]
    assert json.loads(written) == value
    assert "    0.00001,\n    0.00000025\n" in written and '"big": 1e+20,' in written
    assert '"note": "\\"cost_usd\\": 1e-05,",' in written  # a string is left as it is


def test_wait_on_a_terminal_draws_a_live_table(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    console = terminal()
    ok(cli("run", "research-and-summarize", "--wait", console=console))
    drawn = console.file.getvalue()  # type: ignore[attr-defined]
    assert "STEP" in drawn and "ATTEMPTS" in drawn and "summarize" in drawn
    assert "\x1b[" in drawn  # coloured statuses
    assert "run run-1 of research-and-summarize (research-and-summarize@1): " in drawn


def test_the_live_table_indents_parallel_sub_steps() -> None:
    steps = [{"id": "gather", "type": "parallel", "status": "running"},
             {"id": "search-papers", "parent": "gather", "status": "success"}]  # fmt: skip
    console = Console(file=io.StringIO(), width=100)
    console.print(steps_table({"run_id": "r", "steps": steps}))
    rows = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert any(row.startswith("gather ") for row in rows)
    assert any(row.startswith("  search-papers ") for row in rows)


def test_a_tables_lines_end_at_their_last_character_on_a_terminal_too() -> None:
    steps = [
        {"id": "a", "status": "success", "attempts": 1, "started_at": T0,
         "finished_at": "2025-01-01T10:00:01+00:00"},
        {"id": "b", "status": "pending"},
    ]  # fmt: skip
    console = terminal()
    console.print(steps_table({"run_id": "r", "steps": steps}))
    drawn = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[" in drawn
    lines = [Text.from_ansi(line).plain for line in drawn.splitlines()]
    assert len(lines) == 4 and [line for line in lines if line != line.rstrip()] == [], lines


# Polls refused while the gateway is away that --wait rides out (about a minute of them).
AWAY_POLLS = int(UNREACHABLE_GRACE_SECONDS / UNREACHABLE_INTERVAL)


def test_wait_rides_out_a_gateway_restart(cli: Invoke, gateway: FakeGateway) -> None:
    # `baton up` takes 10 to 20 s to come back; ten polls (3 s) gave up on every restart.
    gateway.store(RESEARCH)
    gateway.unreachable_reads = AWAY_POLLS
    assert "success" in ok(cli("run", "research-and-summarize", "--wait"))
    assert sorted(set(gateway.sleeps)) == [POLL_INTERVAL, UNREACHABLE_INTERVAL]


def test_wait_gives_up_when_the_gateway_stays_away(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    gateway.unreachable_reads = 10 * AWAY_POLLS
    result = cli("run", "research-and-summarize", "--wait")
    assert result.exit_code == 1
    assert f"the gateway at {URL} could not serve this (503): workflow service restarting" in (
        result.stderr
    )
    assert UNREACHABLE_GRACE_SECONDS <= sum(gateway.sleeps) <= UNREACHABLE_GRACE_SECONDS + 2
    no_traceback(result)


def test_ctrl_c_while_waiting_leaves_the_run_going(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)

    def interrupted(_seconds: float) -> None:
        raise KeyboardInterrupt

    result = cli("run", "research-and-summarize", "--wait", sleep=interrupted)
    assert result.exit_code == 130
    assert "stopped waiting; the run goes on: baton workflow status run-1" in result.stderr
    no_traceback(result)


# --- runs / status / messages -------------------------------------------------------------


def _finished_run(gateway: FakeGateway, run_id: str, workflow: str, **extra: Any) -> None:
    gateway.add_run({
        "run_id": run_id, "workflow": workflow, "version": 1, "version_id": f"{workflow}@1",
        "mode": "live", "status": "success", "started_at": T0,
        "finished_at": "2025-01-01T10:03:04+00:00", "cost_usd": 0.5, "error": None,
        "variables": {}, "steps": [], "handoffs": [], "messages": [], "estimate": None, **extra,
    })  # fmt: skip


def test_runs_lists_newest_first_with_a_limit(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    for i in range(3):
        _finished_run(gateway, f"r{i}", "research-and-summarize")
    _finished_run(gateway, "x", "other")
    out = ok(cli("runs", "research-and-summarize", "--limit", "2"))
    assert "r2" in out and "r1" in out and "r0" not in out and "3m04s" in out
    assert gateway.requests[-1].url.path == "/workflows/research-and-summarize/runs"
    assert gateway.requests[-1].url.params["limit"] == "2"
    everything = json.loads(ok(cli("runs", "--json")))
    assert [r["run_id"] for r in everything] == ["x", "r2", "r1", "r0"]
    assert gateway.requests[-1].url.path == "/workflow-runs"


def test_runs_reads_page_after_page_up_to_its_limit(cli: Invoke, gateway: FakeGateway) -> None:
    """A page holds about 512 KiB of runs: runs with long errors come on several pages, and
    `runs --limit` printed the first page's alone."""
    gateway.store(RESEARCH)
    for i in range(5):
        _finished_run(gateway, f"r{i}", "research-and-summarize")
    gateway.runs_page = 2
    listed = json.loads(ok(cli("runs", "research-and-summarize", "--limit", "4", "--json")))
    assert [r["run_id"] for r in listed] == ["r4", "r3", "r2", "r1"]
    asked = [dict(r.url.params) for r in gateway.requests[-2:]]
    assert asked == [{"limit": "4"}, {"limit": "2", "after": "r3"}]
    everything = json.loads(ok(cli("runs", "--json")))
    assert [r["run_id"] for r in everything] == ["r4", "r3", "r2", "r1", "r0"]


def test_runs_of_an_unknown_workflow_is_not_found(cli: Invoke) -> None:
    result = cli("runs", "ghost")
    assert result.exit_code == 1 and "workflow ghost not found" in result.stderr


def test_runs_limit_must_be_positive(cli: Invoke) -> None:
    assert cli("runs", "--limit", "0").exit_code == 2


def test_status_prints_the_run_as_json(cli: Invoke, gateway: FakeGateway) -> None:
    _finished_run(gateway, "r1", "research-and-summarize")
    assert json.loads(ok(cli("status", "r1"))) == public_run(gateway.runs["r1"])


def test_status_of_an_unknown_run_is_not_found(cli: Invoke) -> None:
    result = cli("status", "nope")
    assert result.exit_code == 1 and "run nope not found" in result.stderr


@pytest.mark.parametrize("command", ["messages", "msgs"])
def test_messages_show_handoffs_and_agent_messages(
    cli: Invoke, gateway: FakeGateway, command: str
) -> None:
    _finished_run(
        gateway, "r1", "w",
        handoffs=[{"from": "draft", "to": "review", "agent": "ruri"}],
        messages=[{"step": "review", "agent": "ruri", "role": "assistant",
                   "text": "Looks good [mostly].\nShip it.", "at": T0}],
    )  # fmt: skip
    out = ok(cli(command, "r1"))
    assert "handoff draft -> review (agent ruri)" in out
    assert f"[review] ruri (assistant) at {T0}" in out
    assert "  Looks good [mostly]." in out.splitlines() and "  Ship it." in out.splitlines()
    shown = json.loads(ok(cli(command, "r1", "--json")))
    assert shown["handoffs"][0]["to"] == "review" and len(shown["messages"]) == 1


def _big_run(gateway: FakeGateway) -> None:
    """A run whose detail comes in pages of 2 steps (4,000-step runs do not fit one reply)."""
    steps = [{"id": f"s{i}", "type": "dispatch", "status": "success"} for i in range(5)]
    said = [  # s3 answered before s0 was asked: the order the messages happened in
        {"step": "s3", "agent": "a", "role": "user", "text": "three", "at": "2025-01-01T10:00:00Z"},
        {"step": "s0", "agent": "a", "role": "user", "text": "zero", "at": "2025-01-01T10:00:01Z"},
        {
            "step": "s4",
            "agent": "a",
            "role": "user",
            "text": "four",
            "at": "2025-01-01T10:00:02.5Z",
        },
    ]
    _finished_run(gateway, "big", "w", steps=steps, messages=said,
                  handoffs=[{"from": "s3", "to": "s4", "agent": "a", "at": T0}])  # fmt: skip
    gateway.steps_per_page = 2


def test_status_of_a_run_in_pages_prints_every_step(cli: Invoke, gateway: FakeGateway) -> None:
    _big_run(gateway)
    shown = json.loads(ok(cli("status", "big")))

    assert [step["id"] for step in shown["steps"]] == ["s0", "s1", "s2", "s3", "s4"]
    assert [m["text"] for m in shown["messages"]] == ["three", "zero", "four"]
    assert shown["next_steps_after"] is None and shown["more_steps"] == 0
    asked = [r.url.params.get("steps_after") for r in gateway.requests]
    assert asked == [None, "s1", "s3"]


def test_messages_of_a_run_in_pages_show_them_all(cli: Invoke, gateway: FakeGateway) -> None:
    _big_run(gateway)
    out = ok(cli("messages", "big"))

    assert "handoff s3 -> s4 (agent a)" in out
    assert [line.strip() for line in out.splitlines() if line.startswith("  ")] == [
        "three",
        "zero",
        "four",
    ]


def test_messages_of_a_run_without_any(cli: Invoke, gateway: FakeGateway) -> None:
    _finished_run(gateway, "r1", "w")
    assert "no agent messages or handoffs" in ok(cli("msgs", "r1"))


# --- cancel -------------------------------------------------------------------------------


def _started(cli: Invoke, gateway: FakeGateway) -> str:
    gateway.store(RESEARCH)
    ok(cli("run", "research-and-summarize"))
    return "run-1"


def test_cancel_records_the_reason_and_the_run_ends_cancelled(
    cli: Invoke, gateway: FakeGateway
) -> None:
    run_id = _started(cli, gateway)
    assert ok(cli("cancel", run_id, "--reason", "wrong topic")) == (
        "cancelling run run-1 (reason: wrong topic)\n"
    )
    sent = gateway.requests[-1]
    assert (sent.method, sent.url.path) == ("POST", "/workflow-runs/run-1/cancel")
    assert json.loads(sent.content) == {"reason": "wrong topic"}
    assert json.loads(ok(cli("status", run_id)))["status"] == "cancelled"


def test_cancel_without_a_reason_leaves_it_to_the_gateway(
    cli: Invoke, gateway: FakeGateway
) -> None:
    run_id = _started(cli, gateway)
    assert "(reason: cancelled by its owner)" in ok(cli("cancel", run_id))
    assert gateway.requests[-1].content == b""


def test_cancel_json_prints_the_reply(cli: Invoke, gateway: FakeGateway) -> None:
    run_id = _started(cli, gateway)
    reply = json.loads(ok(cli("cancel", run_id, "--reason", "stop", "--json")))
    assert reply == {"run_id": "run-1", "status": "running", "reason": "stop"}


def test_cancel_again_says_it_already_was(cli: Invoke, gateway: FakeGateway) -> None:
    run_id = _started(cli, gateway)
    ok(cli("cancel", run_id))
    assert ok(cli("cancel", run_id)) == "run run-1 was already cancelled\n"  # still winding down
    ok(cli("status", run_id))
    assert ok(cli("cancel", run_id)) == "run run-1 was already cancelled\n"  # ended cancelled
    assert json.loads(ok(cli("cancel", run_id, "--json")))["status"] == "cancelled"


def test_cancel_a_finished_run_prints_the_gateways_reason(
    cli: Invoke, gateway: FakeGateway
) -> None:
    _finished_run(gateway, "r1", "research-and-summarize")
    result = cli("cancel", "r1")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: run r1 already ended with status success; only a running run can be cancelled"
    )
    assert result.stdout == ""


def test_cancel_an_unknown_run_is_not_found(cli: Invoke) -> None:
    result = cli("cancel", "nope")
    assert result.exit_code == 1 and result.stderr.strip() == "error: run nope not found"


def test_cancel_with_an_empty_reason_is_refused(cli: Invoke, gateway: FakeGateway) -> None:
    run_id = _started(cli, gateway)
    result = cli("cancel", run_id, "--reason", "")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: cancel of run run-1 is invalid (1 problem):",
        "reason: must be 1 to 500 characters",
    ]
    assert run_id not in gateway.cancels


def test_cancel_wait_follows_the_run_until_it_is_cancelled(
    cli: Invoke, gateway: FakeGateway
) -> None:
    run_id = _started(cli, gateway)
    ok(cli("status", run_id))  # its first step is now running
    out = ok(cli("cancel", run_id, "--reason", "wrong topic", "--wait"))
    lines = out.splitlines()
    assert lines[0] == "cancelling run run-1 (reason: wrong topic)"
    assert "run run-1 of research-and-summarize (research-and-summarize@1): cancelled" in out
    assert "  error: run cancelled: wrong topic" in lines
    assert "  research [cancelled]: -" in lines and "  summarize [skipped]: -" in lines


def test_cancel_wait_on_an_already_cancelled_run_exits_0(cli: Invoke, gateway: FakeGateway) -> None:
    run_id = _started(cli, gateway)
    ok(cli("cancel", run_id))
    out = ok(cli("cancel", run_id, "--wait"))
    assert "run run-1 was already cancelled" in out and "): cancelled in " in out


def test_cancel_wait_exits_1_when_the_run_ends_another_way_first(
    cli: Invoke, gateway: FakeGateway
) -> None:
    gateway.late_cancels = True
    run_id = _started(cli, gateway)
    result = cli("cancel", run_id, "--wait")
    assert result.exit_code == 1
    assert "cancelling run run-1" in result.stdout and "): success in " in result.stdout
    assert result.stderr.strip() == "error: run run-1 ended with status success"


# --- history / rollback / diff ------------------------------------------------------------


def _three_versions(gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    gateway.store({**RESEARCH, "timeout": "1h"}, "update")
    gateway.store({**RESEARCH, "timeout": "2h"}, "update")


def test_history_lists_versions(cli: Invoke, gateway: FakeGateway) -> None:
    _three_versions(gateway)
    gateway.store(RESEARCH, "rollback", "research-and-summarize@1")
    out = ok(cli("history", "research-and-summarize"))
    assert "rollback to research-and-summarize@1" in out and "research-and-summarize@3" in out
    listed = json.loads(ok(cli("history", "research-and-summarize", "--json")))
    assert [v["version"] for v in listed] == [4, 3, 2, 1]


def test_history_reads_every_page(cli: Invoke, gateway: FakeGateway) -> None:
    """A page holds about 512 KiB of versions, and a workflow has no bound on how many:
    `history` printed the first page's alone."""
    _three_versions(gateway)
    gateway.list_page = 2
    listed = json.loads(ok(cli("history", "research-and-summarize", "--json")))
    assert [v["version"] for v in listed] == [3, 2, 1]
    asked = [dict(r.url.params) for r in gateway.requests[-2:]]
    assert asked == [{}, {"after": "research-and-summarize@2"}]


def test_history_of_an_unknown_workflow_is_not_found(cli: Invoke) -> None:
    result = cli("history", "ghost")
    assert result.exit_code == 1 and "workflow ghost not found" in result.stderr


@pytest.mark.parametrize("given", ["1", "research-and-summarize@1"])
def test_rollback_accepts_a_number_or_a_version_id(
    cli: Invoke, gateway: FakeGateway, given: str
) -> None:
    _three_versions(gateway)
    out = ok(cli("rollback", "research-and-summarize", given))
    assert "rolled back research-and-summarize to research-and-summarize@1" in out
    assert "now version 4 (research-and-summarize@4)" in out
    assert json.loads(gateway.requests[-1].content) == {"version_id": "research-and-summarize@1"}


@pytest.mark.parametrize(
    ("given", "message"),
    [("other@1", "other@1 is a version of other, not of research-and-summarize"),
     ("v1", "version-id: expected research-and-summarize@N or N, got 'v1'"),
     ("0", "version-id: versions start at 1, got '0'"),
     ("research-and-summarize@00", "version-id: versions start at 1")],
)  # fmt: skip
def test_rollback_refuses_a_bad_version_id(
    cli: Invoke, gateway: FakeGateway, given: str, message: str
) -> None:
    result = cli("rollback", "research-and-summarize", given)
    assert result.exit_code == 2 and message in result.stderr
    assert gateway.requests == []


def test_rollback_to_a_missing_version_is_not_found(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    result = cli("rollback", "research-and-summarize", "9")
    assert result.exit_code == 1
    assert result.stderr == "error: version research-and-summarize@9 not found\n"


def test_rollback_of_a_missing_workflow_names_the_workflow(cli: Invoke) -> None:
    result = cli("rollback", "ghost", "1")
    assert result.exit_code == 1 and result.stderr == "error: workflow ghost not found\n"


@pytest.mark.parametrize("second", ["research-and-summarize@3", "3"])
def test_diff_prints_the_unified_diff(cli: Invoke, gateway: FakeGateway, second: str) -> None:
    _three_versions(gateway)
    out = ok(cli("diff", "research-and-summarize@1", second))
    assert '-  "timeout": "30m",' in out.splitlines() and '+  "timeout": "2h",' in out.splitlines()
    assert "\x1b[" not in out  # not a terminal: plain text
    assert gateway.requests[-1].url.path == (
        "/workflow-versions/research-and-summarize@1/diff/research-and-summarize@3"
    )


def test_diff_is_coloured_on_a_terminal(cli: Invoke, gateway: FakeGateway) -> None:
    _three_versions(gateway)
    console = terminal()
    ok(cli("diff", "research-and-summarize@1", "research-and-summarize@2", console=console))
    drawn = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[32m+" in drawn and "\x1b[31m-" in drawn


def test_diff_of_identical_versions_says_so(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.store(RESEARCH)
    gateway.store(RESEARCH, "rollback", "research-and-summarize@1")
    out = ok(cli("diff", "research-and-summarize@1", "2"))
    assert "no differences between research-and-summarize@1 and research-and-summarize@2" in out


def test_diff_refuses_version_zero(cli: Invoke, gateway: FakeGateway) -> None:
    result = cli("diff", "research-and-summarize@1", "0")
    assert result.exit_code == 2 and "version2: versions start at 1, got '0'" in result.stderr
    assert gateway.requests == []


def test_diff_needs_a_workflow_name(cli: Invoke, gateway: FakeGateway) -> None:
    result = cli("diff", "1", "2")
    assert result.exit_code == 2 and "name the workflow" in result.stderr
    assert gateway.requests == []


@pytest.mark.parametrize(
    ("first", "second", "missing"),
    [
        ("research-and-summarize@1", "7", "research-and-summarize@7"),
        ("research-and-summarize@7", "1", "research-and-summarize@7"),
        ("ghost@1", "research-and-summarize@1", "ghost@1"),
    ],
)
def test_diff_of_an_unknown_version_names_that_version(
    cli: Invoke, gateway: FakeGateway, first: str, second: str, missing: str
) -> None:
    # It said "version A or B not found" although the gateway names the one that is missing.
    gateway.store(RESEARCH)
    result = cli("diff", first, second)
    assert result.exit_code == 1 and result.stderr == f"error: version {missing} not found\n"


# --- gateway failures, URL and token ------------------------------------------------------


def test_connection_refused_is_one_clear_line(cli: Invoke, gateway: FakeGateway) -> None:
    gateway.down = True
    result = cli("list")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"error: cannot reach the gateway at {URL}: [Errno 111] Connection refused"
    )
    no_traceback(result)


def test_a_503_of_the_gateways_says_what_it_could_not_serve(
    cli: Invoke, gateway: FakeGateway
) -> None:
    # It said "cannot reach the gateway" of a gateway that had answered, its service down.
    gateway.status_503 = True
    result = cli("status", "r1")
    assert result.exit_code == 1
    assert "cannot reach" not in result.stderr
    assert f"the gateway at {URL} could not serve this (503): the workflow service did not" in (
        result.stderr
    )


def test_a_refused_token_points_at_baton_token(cli: Invoke) -> None:
    result = cli("list", env={"BATON_TOKEN": "forged"})
    assert result.exit_code == 1
    assert "the gateway refused the token" in result.stderr and "baton token" in result.stderr


def test_a_token_signed_with_another_secret_is_said_so(cli: Invoke) -> None:
    # "token signature does not verify" alone left an operator to guess that the gateway was
    # started with another BATON_JWT_SECRET than the one the token was minted with.
    forged = mint_token("another-secret-that-is-long-enough!!", "mallory")
    result = cli("list", env={"BATON_TOKEN": forged})
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: the gateway refused the token: token signature does not verify (it was signed "
        "with another secret than the gateway's BATON_JWT_SECRET: mint it with that one, "
        "`BATON_JWT_SECRET=... baton token --user NAME`, into BATON_TOKEN)"
    )


def test_no_token_for_a_remote_gateway_is_a_usage_error(cli: Invoke, gateway: FakeGateway) -> None:
    result = cli("list", env={"BATON_TOKEN": None})
    assert result.exit_code == 2
    assert "set BATON_TOKEN (see `baton token`)" in result.stderr
    assert gateway.requests == []


def test_the_local_gateway_gets_a_token_minted_from_the_data_dir(
    cli: Invoke, gateway: FakeGateway, data_dir: Path
) -> None:
    write_state(data_dir, UpState(pid=1, gateway_url=URL, nats_url="nats://127.0.0.1:1"))
    (data_dir / "jwt-secret").write_text(SECRET + "\n")
    ok(cli("list", env={"BATON_TOKEN": None, "BATON_URL": None, "BATON_USER": "alice"}))
    assert str(gateway.requests[-1].url) == f"{URL}/workflows"
    assert gateway.users == ["alice"]


def test_a_user_given_that_no_user_id_can_be_is_a_usage_error_not_made_fit(
    cli: Invoke, gateway: FakeGateway, data_dir: Path
) -> None:
    # Only the login name, the default, is made fit (`first.last` as `first-last`): a user
    # given is used as written. Refused, it exited 1 as a failure does.
    write_state(data_dir, UpState(pid=1, gateway_url=URL, nats_url="nats://127.0.0.1:1"))
    (data_dir / "jwt-secret").write_text(SECRET + "\n")
    env = {"BATON_TOKEN": None, "BATON_URL": None, "BATON_USER": "first.last"}
    result = cli("list", env=env)
    assert result.exit_code == 2, result.output
    assert "error: --user: must not contain spaces" in result.stderr
    assert gateway.requests == []


def test_no_token_is_minted_for_a_gateway_that_is_not_the_local_one(
    cli: Invoke, gateway: FakeGateway, data_dir: Path
) -> None:
    write_state(data_dir, UpState(pid=1, gateway_url=URL, nats_url="nats://127.0.0.1:1"))
    (data_dir / "jwt-secret").write_text(SECRET + "\n")
    result = cli("--url", "http://elsewhere:9000", "list", env={"BATON_TOKEN": None})
    assert result.exit_code == 2 and "set BATON_TOKEN" in result.stderr
    assert gateway.requests == []


def test_url_option_wins_over_the_environment(cli: Invoke, gateway: FakeGateway) -> None:
    ok(cli("--url", "http://elsewhere:9000/", "list"))
    assert str(gateway.requests[-1].url) == "http://elsewhere:9000/workflows"


def test_url_defaults_to_localhost_8080(cli: Invoke, gateway: FakeGateway) -> None:
    ok(cli("list", env={"BATON_URL": None}))
    assert str(gateway.requests[-1].url) == "http://127.0.0.1:8080/workflows"


def test_an_error_without_the_common_body_still_prints_cleanly(
    cli: Invoke, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_request: Any) -> Any:
        import httpx

        return httpx.Response(500, text="<html>Internal Server Error</html>")

    monkeypatch.setattr(gateway, "handle", broken)
    result = cli("list")
    assert result.exit_code == 1
    assert "HTTP 500" in result.stderr and "Internal Server Error" in result.stderr
    no_traceback(result)


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1",
        "notaurl",
        "127.0.0.1:8080",
        "ftp://gw.test",
        "http://",
        "http://gw:port",
        "http://gw:0",  # httpx takes any number; a connection then said "Connection refused"
        "http://gw:99999",
    ],
)
def test_a_bad_url_is_a_usage_error_naming_it(cli: Invoke, gateway: FakeGateway, url: str) -> None:
    for given in (["--url", url], []):
        result = cli(*given, "list", env={"BATON_URL": url})
        assert result.exit_code == 2, result.stderr
        assert result.stderr.startswith("error: --url / BATON_URL: ") and url in result.stderr
        no_traceback(result)
    assert gateway.requests == []


@pytest.mark.parametrize("token", ["tök", "a\nb", "a b"])
def test_a_token_that_cannot_be_a_jwt_is_a_usage_error(
    cli: Invoke, gateway: FakeGateway, token: str
) -> None:
    result = cli("list", env={"BATON_TOKEN": token})
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --token / BATON_TOKEN: ")
    no_traceback(result)
    assert gateway.requests == []


def test_a_token_with_surrounding_whitespace_is_used_trimmed(
    cli: Invoke, gateway: FakeGateway
) -> None:
    ok(cli("list", env={"BATON_TOKEN": f" {TOKEN}\r\n"}))
    assert gateway.requests[-1].headers["Authorization"] == f"Bearer {TOKEN}"


def test_validate_a_name_that_is_also_a_directory_validates_the_stored_workflow(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gateway.store({**RESEARCH, "name": "docs"})
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    assert "workflow docs is valid" in ok(cli("validate", "docs"))


@pytest.mark.parametrize("command", ["status", "messages", "cancel"])
def test_an_empty_run_id_is_a_usage_error(cli: Invoke, gateway: FakeGateway, command: str) -> None:
    result = cli(command, " ")
    assert result.exit_code == 2 and "RUN_ID" in result.stderr
    assert gateway.requests == []


@pytest.mark.parametrize("status", [502, 504])
def test_wait_rides_out_a_proxy_that_has_lost_the_gateway(
    cli: Invoke, gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    import httpx

    gateway.store(RESEARCH)
    handle, lost = gateway.handle, [AWAY_POLLS]

    def behind_a_proxy(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/workflow-runs/") and lost[0] > 0:
            lost[0] -= 1
            return httpx.Response(status, text="<html>Bad Gateway</html>")
        return handle(request)

    monkeypatch.setattr(gateway, "handle", behind_a_proxy)
    assert "success" in ok(cli("run", "research-and-summarize", "--wait"))


@pytest.mark.parametrize(
    ("login", "user"),
    [
        ("alex", "alex"),
        ("first.last", "first-last"),
        ("a b*c>d", "a-b-c-d"),
        ("...", "local"),
        # A login spelled with a combining accent: the NFC form, the one a user id may take.
        ("rene\u0301", "ren\u00e9"),
    ],
)
def test_the_default_user_is_the_login_name_made_fit_for_a_user_id(login: str, user: str) -> None:
    assert default_user(lambda: login) == user
    assert user_id_problem(default_user(lambda: login)) is None


def test_a_workflow_file_with_a_key_given_twice_is_a_usage_error(
    cli: Invoke, gateway: FakeGateway, tmp_path: Path
) -> None:
    # The reader kept the last value; the gateway never saw the first.
    path = tmp_path / "wf.json"
    path.write_text('{"name": "w", "steps": [{"id": "a", "prompt": "x", "prompt": "y"}]}')
    result = cli("create", str(path))
    assert result.exit_code == 2 and "key 'prompt' is given twice" in result.stderr
    assert gateway.requests == []
