"""Validation over HTTP: every problem at once with its path, and nothing stored."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import yaml  # type: ignore[import-untyped]

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_workflow.domain.dag import validation

from ...platform_stack import Stack
from .conftest import Author


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


DRAFT = {"id": "d", "prompt": "draft"}

BROKEN: dict[str, Any] = {
    "name": "bad name!",
    "timeout": "soon",
    "steps": [
        {"id": "a", "prompt": "x", "dependsOn": ["b"]},
        {"id": "b", "prompt": "y", "dependsOn": ["a"]},
        {"id": "loner", "prompt": "z", "dependsOn": ["loner"]},
        {"id": "research", "prompt": "r"},
        {"id": "summary", "prompt": "s", "dependsOn": ["reserch"]},
        {"id": "check", "type": "condition", "if": "1 == 1", "then": "nowhere",
         "else": "elsewhere"},
        {"id": "review", "type": "handoff", "agent": "ruri", "handoffFrom": "ghost"},
        {"id": "pause", "type": "delay", "delay": "5 minutes"},
        {"id": "slow", "prompt": "p", "timeout": "10", "retryDelay": "-1s"},
        {"id": "no-prompt"},
        {"id": "no-if", "type": "condition"},
        {"id": "no-delay", "type": "delay"},
        {"id": "no-msg", "type": "notify"},
        {"id": "no-skill", "type": "skill"},
        {"id": "no-subs", "type": "parallel"},
        {"id": "no-source", "type": "handoff"},
        {"id": "no-tool", "type": "tool_call"},
        {"id": "fetch", "type": "tool_call", "toolName": "teleport"},
        {"id": "bad-error", "prompt": "q", "onError": "abort"},
    ],
}  # fmt: skip

EXPECTED = {
    ("name", 'may use only letters, digits, "-" and "_"'),
    ("timeout", 'invalid duration "soon"'),
    ("steps[0].dependsOn[0]", "dependency cycle a -> b -> a"),
    ("steps[2].dependsOn[0]", "a step cannot depend on itself"),
    ("steps[4].dependsOn[0]", 'unknown step "reserch" (did you mean "research"?)'),
    ("steps[5].then", 'unknown step "nowhere"'),
    ("steps[5].else", 'unknown step "elsewhere"'),
    ("steps[6].handoffFrom", 'unknown step "ghost"'),
    ("steps[7].delay", 'invalid duration "5 minutes"'),
    ("steps[8].timeout", 'invalid duration "10": missing unit'),
    ("steps[8].retryDelay", 'duration "-1s" cannot have a sign'),
    ("steps[9].prompt", "required for a dispatch step"),
    ("steps[10].if", "required for a condition step"),
    ("steps[10].then", "required for a condition step"),
    ("steps[11].delay", "required for a delay step"),
    ("steps[12].notifyMsg", "required for a notify step"),
    ("steps[13].skill", "required for a skill step"),
    ("steps[14].parallel", "at least one sub-step"),
    ("steps[15].handoffFrom", "required for a handoff step"),
    ("steps[15].agent", "required for a handoff step"),
    ("steps[16].toolName", "required for a tool_call step"),
    ("steps[17].toolName", "unknown tool 'teleport'"),
    ("steps[18].onError", 'must be "stop", "skip" or "retry"'),
}


EXPECTED_NAME = ("name", 'may use only letters, digits, "-" and "_"')


def problems(response: httpx.Response) -> list[tuple[str | None, str]]:
    """Each problem as (its path in the document or run body, None for the whole; message).
    The gateway names each as a field of the body: `body.steps[0].prompt`, or `body`."""
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid"
    fields = [d["field"] for d in error["details"]]
    assert all(f == "body" or f.startswith("body.") for f in fields), fields
    return [
        (d["field"].removeprefix("body").removeprefix(".") or None, d["message"])
        for d in error["details"]
    ]


def missing(found: list[tuple[str, str]], expected: set[tuple[str, str]]) -> list[Any]:
    return [e for e in expected if not any(f == e[0] and e[1] in m for f, m in found)]


async def test_an_invalid_document_gets_every_problem_with_its_path_and_is_not_stored(
    author: Author,
) -> None:
    found = problems(await author.create(BROKEN))

    assert missing(found, EXPECTED) == [], found
    assert len(found) == len(EXPECTED), found
    # The same problems under a good name: still nothing stored, no history at all.
    found = problems(await author.create({**BROKEN, "name": "broken"}))
    assert missing(found, EXPECTED - {EXPECTED_NAME}) == [], found
    assert (await author.get("/workflows"))["workflows"] == []
    for path in ("/workflows/broken", "/workflows/broken/versions"):
        response = await author.http.get(path, headers=author.headers)
        assert response.status_code == 404, response.text
    assert (await author.post_run("broken")).status_code == 404


async def test_durations_past_gos_longest_are_refused_not_a_server_error(author: Author) -> None:
    document = {
        "name": "forever",
        "timeout": "100000000h",
        "steps": [
            {"id": "a", "prompt": "x", "timeout": "99999999999999999999h"},
            {"id": "w", "type": "delay", "delay": "2562048h", "dependsOn": ["a"]},
            {"id": "r", "prompt": "y", "onError": "retry", "retryMax": 9, "retryBackoff": 1e9},
        ],
    }
    found = problems(await author.create(document))
    fields = ["timeout", "steps[0].timeout", "steps[1].delay", "steps[2].retryBackoff"]
    assert [field for field, _ in found] == fields
    assert all("the longest is 2562047h47m16.854775807s" in m for _, m in found[:3]), found
    assert (await author.get("/workflows"))["workflows"] == []


async def test_deep_nesting_is_refused_not_a_server_error(author: Author) -> None:
    deep_json = '{"name": "deep", "steps": ' + "[" * 50_000 + "]" * 50_000 + "}"
    assert problems(await author.create(deep_json)) == [
        (None, "nested too deeply: at most 32 levels of objects and lists")
    ]
    condition = {"id": "c", "type": "condition", "if": "!" * 2_000 + "1", "then": "d"}
    found = problems(await author.create({"name": "deep", "steps": [condition, DRAFT]}))
    assert found == [
        ("steps[0].if", 'column 65: nested too deeply: at most 64 levels of "(" and "!"')
    ]
    assert (await author.get("/workflows"))["workflows"] == []


async def test_a_name_longer_than_the_routes_take_is_refused(author: Author) -> None:
    steps = [{"id": "a", "prompt": "x"}]
    found = problems(await author.create({"name": "n" * 129, "steps": steps}))
    assert found == [("name", "has 129 characters; at most 128 allowed")]
    assert (await author.get("/workflows"))["workflows"] == []
    await author.created({"name": "n" * 128, "steps": steps})
    assert (await author.get(f"/workflows/{'n' * 128}"))["version_id"] == "n" * 128 + "@1"


async def test_an_agent_model_or_provider_no_task_carries_is_refused_when_saved(
    author: Author,
) -> None:
    # Stored, each made every run of the workflow fail when its step asked the agent.
    step = {"id": "a", "prompt": "x", "agent": "a" * 65, "model": "m" * 201, "provider": "p" * 65}
    found = problems(await author.create({"name": "long", "steps": [step]}))
    assert found == [
        ("steps[0].agent", "has 65 characters; an agent takes at most 64"),
        ("steps[0].model", "has 201 characters; an agent takes at most 200"),
        ("steps[0].provider", "has 65 characters; an agent takes at most 64"),
    ]
    spaced = {
        "id": "a",
        "type": "handoff",
        "agent": "ru ri",
        "handoffFrom": "d",
        "dependsOn": ["d"],
    }
    found = problems(await author.create({"name": "spaced", "steps": [DRAFT, spaced]}))
    assert found == [("steps[1].agent", "an agent is named by letters, digits, '-' or '_' only")]
    assert (await author.get("/workflows"))["workflows"] == []
    # At the limits, or a template checked once rendered, is stored as before (an agent at the
    # limit is then held to the agent-runner's profiles, as any other).
    fine = {"id": "a", "prompt": "x", "agent": "ruri", "model": "{{m}}" + "m" * 200}
    await author.created({"name": "fine", "variables": {"m": ""}, "steps": [fine]})
    longest = {"id": "a", "prompt": "x", "agent": "a" * 64}
    found = problems(await author.create({"name": "longest", "steps": [longest]}))
    assert [(path, text.split(";")[0]) for path, text in found] == [
        ("steps[0].agent", f'no agent profile "{"a" * 64}"')
    ]


KNOWN_AGENTS = ", ".join(sorted(load_profiles(SHIPPED_PROFILES)))
"""The agents of the test platform's agent-runner: the profiles it ships."""


async def test_an_agent_with_no_profile_is_refused_when_saved_or_validated(author: Author) -> None:
    # Saved, every run of it failed the step: "agent 'rurri' has no profile; known: ...".
    review = {
        "id": "review",
        "type": "handoff",
        "agent": "rurri",
        "handoffFrom": "d",
        "dependsOn": ["d"],
    }
    fan_out = {"id": "fan", "type": "parallel", "dependsOn": ["d"], "parallel": [
        {"id": "p0", "agent": "hisui", "prompt": "a"},
        {"id": "p1", "agent": "{{who}}", "prompt": "b"},  # checked once rendered, at run time
        {"id": "p2", "agent": "nobody", "prompt": "c"},
    ]}  # fmt: skip
    document = {"name": "typo", "variables": {"who": "kohaku"},
                "steps": [DRAFT, review, fan_out]}  # fmt: skip
    known = f"known: {KNOWN_AGENTS}"
    expected = [
        ("steps[1].agent", f'no agent profile "rurri" (did you mean "ruri"?); {known}'),
        ("steps[2].parallel[2].agent", f'no agent profile "nobody"; {known}'),
    ]
    assert problems(await author.create(document)) == expected
    url = "/workflows/typo/validate"
    validated = await author.http.post(url, json=document, headers=author.headers)
    assert problems(validated) == expected
    # In the same answer as the document's other problems.
    broken = {**document, "steps": [DRAFT, {**review, "handoffFrom": "ghost"}, fan_out]}
    found = problems(await author.create(broken))
    assert found[0] == ("steps[1].handoffFrom", 'unknown step "ghost"')
    assert found[1:] == expected
    assert (await author.get("/workflows"))["workflows"] == []

    # Known agents, and a template, are stored; nothing is said about them.
    fixed = {**document, "steps": [DRAFT, {**review, "agent": "ruri"}, fan_out]}
    fixed["steps"][2] = {**fan_out, "parallel": fan_out["parallel"][:2]}
    saved = await author.created(fixed)
    assert saved["version"] == 1 and "warnings" not in saved
    answer = await author.http.post(url, headers=author.headers)  # the stored version
    assert answer.json() == {"valid": True, "name": "typo", "problems": []}


async def test_validate_route_checks_a_body_without_storing_it(author: Author) -> None:
    broken = {**BROKEN, "name": "broken"}
    found = problems(
        await author.http.post("/workflows/broken/validate", json=broken, headers=author.headers)
    )
    assert missing(found, EXPECTED - {EXPECTED_NAME}) == [], found

    good = {"name": "fine", "steps": [{"id": "a", "prompt": "x"}]}
    answer = await author.http.post("/workflows/fine/validate", json=good, headers=author.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"valid": True, "name": "fine", "problems": []}
    assert (await author.get("/workflows"))["workflows"] == []
    stored = await author.http.post("/workflows/fine/validate", headers=author.headers)
    assert stored.status_code == 404, stored.text  # no body: the stored one, and there is none


async def test_validate_route_without_a_body_checks_the_stored_workflow(author: Author) -> None:
    await author.created({"name": "stored", "steps": [{"id": "a", "prompt": "x"}]})
    answer = await author.http.post("/workflows/stored/validate", headers=author.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["name"] == "stored"


async def test_a_template_never_closed_is_stored_as_text_with_a_warning(author: Author) -> None:
    document = {
        "name": "unclosed",
        "steps": [
            {"id": "research", "prompt": "r"},
            {"id": "sum", "prompt": "Summary: {{steps.research.output", "dependsOn": ["research"]},
        ],
    }
    warning = (
        'steps[1].prompt: "{{" at character 10 opens a template that is never closed ("}}"); '
        "it is kept as text"
    )
    checked = await author.http.post(
        "/workflows/unclosed/validate", json=document, headers=author.headers
    )
    assert checked.status_code == 200, checked.text
    assert checked.json()["warnings"] == [warning]

    saved = await author.created(document)
    assert saved["version"] == 1
    assert saved["warnings"] == [warning]
    stored = await author.get("/workflows/unclosed")
    assert stored["definition"]["steps"][1]["prompt"] == "Summary: {{steps.research.output"
    again = await author.http.post("/workflows/unclosed/validate", headers=author.headers)
    assert again.json()["warnings"] == [warning]  # the stored version warns as it did


async def test_validate_route_refuses_a_body_naming_another_workflow(author: Author) -> None:
    other = {"name": "other", "steps": [{"id": "a", "prompt": "x"}]}
    found = problems(
        await author.http.post("/workflows/mine/validate", json=other, headers=author.headers)
    )
    assert found == [("name", "is 'other' but the URL names 'mine'")]


async def test_yaml_body_is_accepted(author: Author) -> None:
    document = {
        "name": "from-yaml",
        "variables": {"topic": "queues"},
        "steps": [{"id": "a", "agent": "hisui", "prompt": "Research {{topic}}"}],
    }
    created = await author.create(yaml.safe_dump(document), **{"Content-Type": "application/yaml"})
    assert created.status_code == 201, created.text
    stored = await author.get("/workflows/from-yaml")
    assert stored["definition"]["steps"][0]["prompt"] == "Research {{topic}}"
    bad = "name: from-yaml\nsteps:\n  - id: a\n    dependsOn: [zz]\n    prompt: x\n"
    found = problems(await author.create(bad, **{"Content-Type": "application/yaml"}))
    assert found == [("steps[0].dependsOn[0]", 'unknown step "zz"')]


async def test_a_body_that_is_not_json_says_so(author: Author) -> None:
    response = await author.create('{"name": "x", "steps": [')
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"], response.text


async def test_run_variables_are_checked(author: Author) -> None:
    await author.created(
        {"name": "needs-topic", "variables": {"topic": ""},
         "steps": [{"id": "a", "prompt": "About {{topic}}"}]}
    )  # fmt: skip
    found = problems(await author.post_run("needs-topic"))
    assert [f for f, _ in found] == ["variables.topic"], found
    found = problems(await author.post_run("needs-topic", variables={"topic": "x", "tpoic": "y"}))
    assert [f for f, _ in found] == ["variables.tpoic"], found
    assert (await author.get("/workflow-runs"))["runs"] == []


async def test_a_prompt_its_defaults_fill_past_the_limit_is_refused_and_not_stored(
    author: Author,
) -> None:
    # Stored (201), every run that kept the default failed its step, after building the
    # 40,000,000-character prompt in the workflow service's memory.
    document = {
        "name": "always-long",
        "variables": {"t": "y" * 1_000},
        "steps": [{"id": "a", "agent": "hisui", "prompt": "{{t}}" * 40_000}],
    }
    assert problems(await author.create(document)) == [
        (
            "steps[0].prompt",
            "has 40,000,000 characters with its variables at their defaults; "
            "an agent takes at most 200,000",
        )
    ]
    assert (await author.get("/workflows"))["workflows"] == []


async def test_run_variables_that_fill_a_prompt_past_the_limit_start_no_run(
    author: Author,
) -> None:
    # Accepted (202), the run built a 500,000,000-character prompt (the service's memory grew
    # by 2 GB and every other request timed out) before failing; a 1 MB variable that only
    # made a run fail was kept in its log.
    amp = {
        "name": "amp",
        "variables": {"t": "x"},
        "steps": [{"id": "a", "agent": "hisui", "prompt": "{{t}}" * 20_000}],
    }
    await author.created(amp)
    found = problems(await author.post_run("amp", variables={"t": "y" * 25_000}))
    assert found == [
        (
            "variables.t",
            "fills steps[0].prompt to 500,000,000 characters; an agent takes at most 200,000",
        )
    ]
    await author.created(
        {"name": "rs", "variables": {"topic": "x"},
         "steps": [{"id": "a", "agent": "hisui", "prompt": "About {{topic}}"}]}
    )  # fmt: skip
    found = problems(await author.post_run("rs", variables={"topic": "y" * 1_000_000}))
    assert found == [
        (
            "variables.topic",
            "fills steps[0].prompt to 1,000,006 characters; an agent takes at most 200,000",
        )
    ]
    assert (await author.get("/workflow-runs"))["runs"] == []
    run = await author.run("amp", variables={"t": "y" * 10})  # 200,000 characters: it fits
    assert (await author.wait(run["run_id"]))["status"] == "success"


async def test_an_unknown_workflow_cannot_run(author: Author) -> None:
    response = await author.post_run("nothing-here")
    assert response.status_code == 404, response.text
    assert json.loads(response.text)["error"]["code"] == "not_found"


async def test_runs_of_a_workflow_that_never_existed_are_not_found(author: Author) -> None:
    # Each names the field that held the name; both said `name`, a field neither request has
    # (found by a review of the gateway).
    for path, field in (
        ("/workflows/nothing-here/runs", "path.name"),
        ("/workflow-runs?workflow=nothing-here", "query.workflow"),
    ):
        response = await author.http.get(path, headers=author.headers)
        assert response.status_code == 404, (path, response.text)
        assert [d["field"] for d in response.json()["error"]["details"]] == [field]


async def test_a_lone_surrogate_in_a_document_or_a_variable_is_refused_by_its_path(
    author: Author,
) -> None:
    # Stored, the document made its workflow unreadable: every GET answered 500.
    document = '{"name": "odd", "steps": [{"id": "a", "prompt": "x \\ud800"}]}'
    assert problems(await author.create(document)) == [
        ("steps[0].prompt", "contains a lone surrogate (U+D800), which cannot be stored")
    ]
    assert (await author.get("/workflows"))["workflows"] == []
    await author.created({"name": "odd", "variables": {"v": "1"}, "steps": [DRAFT]})
    refused = await author.http.post(
        "/workflows/odd/run",
        content=b'{"variables": {"v": "\\udc00"}}',
        headers={**author.headers, "Content-Type": "application/json"},
    )
    assert problems(refused) == [
        ("variables.v", "contains a lone surrogate (U+DC00), which cannot be stored")
    ]


async def test_a_version_saved_before_the_rule_on_other_types_fields_still_runs(
    author: Author, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Saved by a release that ignored a field of another step type, a version must still run
    # after the upgrade; a new save of the same document is refused.
    document = {
        "name": "older",
        "steps": [{"id": "tell", "type": "notify", "notifyMsg": "hi", "model": "x"}],
    }
    with monkeypatch.context() as before:
        before.setattr(validation, "_foreign_fields", lambda *_: iter(()))
        await author.created(document)
    assert (await author.create({**document, "name": "newer"})).status_code == 422
    started = await author.run("older")
    assert (await author.wait(started["run_id"]))["status"] == "success"


async def test_a_key_given_twice_in_a_yaml_or_json_document_is_refused(author: Author) -> None:
    # Both readers kept the last value: the first prompt was dropped without a word.
    twice = "name: twice\nsteps:\n  - id: a\n    prompt: first\n    prompt: second\n"
    found = problems(await author.create(twice, **{"Content-Type": "application/yaml"}))
    assert found == [(None, "not valid YAML: key 'prompt' is given twice at line 5, column 5")]
    json_twice = '{"name": "twice", "steps": [{"id": "a", "prompt": "x", "prompt": "y"}]}'
    refused = await author.create(json_twice)
    assert refused.status_code == 422, refused.text
    assert "key 'prompt' is given twice" in refused.text
    assert (await author.get("/workflows"))["workflows"] == []


async def test_a_yaml_binary_value_is_refused_not_a_server_error(author: Author) -> None:
    # Read as bytes, it passed validation (a str field decoded it) and failed the save: 500.
    for document in (
        "name: bin\nsteps:\n  - {id: a, prompt: !!binary aGVsbG8=}\n",
        "name: bin\nvariables: {v: !!binary aGVsbG8=}\nsteps:\n  - {id: a, prompt: x}\n",
        "name: bin\nsteps:\n  - {id: a, type: tool_call, toolName: echo,\n"
        "     toolInput: {text: !!binary aGVsbG8=}}\n",
    ):
        for path in ("/workflows", "/workflows/bin/validate"):
            answer = await author.http.post(
                path,
                content=document,
                headers={**author.headers, "Content-Type": "application/yaml"},
            )
            found = problems(answer)
            assert len(found) == 1 and found[0][0] is None, found
            assert "a !!binary value is bytes, not text" in found[0][1]
    assert (await author.get("/workflows"))["workflows"] == []


PERMISSION_MODE = {"name": "pm", "steps": [{"id": "e", "prompt": "x", "permissionMode": "weird"}]}


async def test_an_unknown_permission_mode_is_refused_before_anything_runs(author: Author) -> None:
    # It was stored, and passed a dry run; only a live run failed, in the agent-runner.
    unknown = (
        "steps[0].permissionMode",
        'unknown mode "weird"; known: default, plan, acceptEdits, bypassPermissions',
    )
    validate = await author.http.post(
        "/workflows/pm/validate", json=PERMISSION_MODE, headers=author.headers
    )
    assert problems(validate) == [unknown]
    assert problems(await author.create(PERMISSION_MODE)) == [unknown]
    assert (await author.get("/workflows"))["workflows"] == []


async def test_a_version_saved_before_the_permission_mode_rule_still_runs(
    author: Author, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As before the rule: a dry run passes it, a live run's step is refused by the agent-runner.
    with monkeypatch.context() as before:
        before.setattr(validation._Checker, "permission_mode", lambda *_: iter(()))
        await author.created(PERMISSION_MODE)
    dry = await author.wait((await author.run("pm", mode="dry_run"))["run_id"])
    assert dry["status"] == "success"
    live = await author.wait((await author.run("pm"))["run_id"])
    assert live["status"] == "error"
    assert "permission_mode: unknown mode 'weird'" in live["steps"][0]["error"]
