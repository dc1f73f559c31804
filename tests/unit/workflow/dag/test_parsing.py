"""parse_definition: JSON and YAML in, a definition or every problem out (shape and rules)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from baton_workflow.domain.dag.definition import WorkflowDefinition
from baton_workflow.domain.dag.parsing import format_path, parse_definition
from baton_workflow.domain.dag.problems import InvalidWorkflow, Problem

from .conftest import RESEARCH, SEED_EXAMPLES, workflow


def problems(data: Any, **options: Any) -> list[str]:
    with pytest.raises(InvalidWorkflow) as caught:
        parse_definition(data, **options)
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("name", sorted(SEED_EXAMPLES))
def test_every_seed_example_is_valid(name: str) -> None:
    definition = parse_definition(SEED_EXAMPLES[name])
    assert isinstance(definition, WorkflowDefinition)


def test_fields_keep_the_seed_names() -> None:
    definition = parse_definition(SEED_EXAMPLES["retry"])
    step = definition.steps[0]
    assert (step.type, step.on_error, step.retry_max, step.retry_delay) == (
        "dispatch",
        "retry",
        3,
        "10s",
    )
    assert definition.to_document()["steps"][0] == SEED_EXAMPLES["retry"]["steps"][0]


def test_json_text_bytes_and_mapping_give_the_same_definition() -> None:
    text = json.dumps(RESEARCH)
    expected = parse_definition(RESEARCH)
    assert parse_definition(text) == expected
    assert parse_definition(text.encode()) == expected
    assert parse_definition(text, format="json") == expected


def test_yaml_is_accepted_and_detected() -> None:
    text = yaml.safe_dump(RESEARCH, sort_keys=False)
    assert not text.lstrip().startswith("{")
    assert parse_definition(text) == parse_definition(RESEARCH)
    assert parse_definition(text, format="yaml") == parse_definition(RESEARCH)


def test_yaml_with_seed_style_fields() -> None:
    text = """
name: flaky
steps:
  - id: fetch
    type: tool_call
    toolName: http-get
    toolInput: {url: "https://example.com"}
    onError: retry
    retryMax: 2
    retryDelay: 10s
    retryBackoff: 2
"""
    step = parse_definition(text).steps[0]
    assert (step.tool_name, step.retry_max, step.retry_backoff) == ("http-get", 2, 2.0)


def test_the_document_round_trips() -> None:
    for document in SEED_EXAMPLES.values():
        definition = parse_definition(document)
        assert parse_definition(definition.to_document()) == definition


def test_snake_case_names_are_not_accepted_on_the_wire() -> None:
    document = workflow({"id": "a", "prompt": "x", "depends_on": []})
    assert problems(document) == [
        'steps[0].depends_on: unknown field "depends_on" (did you mean "dependsOn"?)'
    ]


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            workflow({"id": "a", "prompt": "x", "dependOn": ["b"]}),
            'steps[0].dependOn: unknown field "dependOn" (did you mean "dependsOn"?)',
        ),
        (
            workflow({"id": "a", "prompt": "x"}, timout="5m"),
            'timout: unknown field "timout" (did you mean "timeout"?)',
        ),
        (
            workflow({"id": "a", "prompt": "x", "zzz": 1}),
            'steps[0].zzz: unknown field "zzz"',
        ),
        (
            workflow({"id": "g", "type": "parallel", "parallel": [{"id": "s", "promt": "x"}]}),
            'steps[0].parallel[0].promt: unknown field "promt" (did you mean "prompt"?)',
        ),
    ],
)
def test_unknown_fields_are_named(document: dict[str, Any], expected: str) -> None:
    assert expected in problems(document)


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        (
            {"id": "a", "type": "dispath", "prompt": "x"},
            'steps[0].type: unknown step type "dispath" (did you mean "dispatch"?); use one of '
            "dispatch, skill, condition, parallel, handoff, tool_call, delay, notify",
        ),
        (
            {"id": "a", "prompt": "x", "onError": "abort"},
            'steps[0].onError: must be "stop", "skip" or "retry" (got "abort")',
        ),
        ({"id": "a", "prompt": 5}, "steps[0].prompt: must be a string (got 5)"),
        (
            {"id": "a", "prompt": "x", "retryMax": "3"},
            'steps[0].retryMax: must be an integer (got "3")',
        ),
        (
            {"id": "a", "prompt": "x", "retryMax": 1.5},
            "steps[0].retryMax: must be an integer (got 1.5)",
        ),
        (
            {"id": "a", "prompt": "x", "budget": True},
            "steps[0].budget: must be a number (got true)",
        ),
        (
            {"id": "a", "prompt": "x", "dependsOn": "b"},
            'steps[0].dependsOn: must be a list (got "b")',
        ),
        (
            {"id": "a", "prompt": "x", "dependsOn": [1]},
            "steps[0].dependsOn[0]: must be a string (got 1)",
        ),
        (
            {"id": "a", "type": "tool_call", "toolName": "t", "toolInput": {"n": 3}},
            "steps[0].toolInput.n: must be a string (got 3)",
        ),
        (
            {"id": "a", "type": "tool_call", "toolName": "t", "toolInput": ["x"]},
            'steps[0].toolInput: must be an object (got ["x"])',
        ),
    ],
)
def test_wrong_shapes_are_named(step: dict[str, Any], expected: str) -> None:
    assert problems(workflow(step)) == [expected]


def test_a_variable_with_a_bad_default_is_still_declared() -> None:
    document = workflow(
        {"id": "a", "prompt": "{{n}} and {{m}} of {{topic}}"},
        variables={"n": 3, "m": ["x"], "topic": "AI"},
    )
    assert problems(document) == [
        "variables.n: must be a string (got 3)",
        'variables.m: must be a string (got ["x"])',
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'name: y3\nvariables: {1: "a", topic: AI}\nsteps: [{id: a, prompt: "{{topic}}"}]',
            ["variables.1: a key must be a string (got 1); quote it in YAML"],
        ),
        (
            "name: y3\nsteps: [{id: a, type: tool_call, toolName: http-get, toolInput: {2: x}}]",
            ["steps[0].toolInput.2: a key must be a string (got 2); quote it in YAML"],
        ),
        # Each once, as YAML writes it (null, not Python's None; true, not the 1 it equals).
        (
            'name: y3\nvariables: {null: y, topic: AI}\nsteps: [{id: a, prompt: "{{topic}}"}]',
            ["variables.null: a key must be a string (got null); quote it in YAML"],
        ),
        (
            'name: y3\nvariables: {1.5: y, true: z}\nsteps: [{id: a, prompt: "x"}]',
            [
                "variables.1.5: a key must be a string (got 1.5); quote it in YAML",
                "variables.true: a key must be a string (got true); quote it in YAML",
            ],
        ),
        (
            "name: y3\nsteps: [{id: a, prompt: x, null: 3}]",
            ["steps[0].null: a key must be a string (got null); quote it in YAML"],
        ),
        (
            "name: y3\n1: x\nsteps: [{id: a, prompt: x}]",
            ["1: a key must be a string (got 1); quote it in YAML"],
        ),
        (
            "name: y3\nsteps: [{id: a, type: tool_call, toolName: t, toolInput: {1: 2}}]",
            ["steps[0].toolInput.1: a key must be a string (got 1); quote it in YAML"],
        ),
        (  # an aliased mapping is one mapping: its key is one problem
            "name: y3\nsteps:\n- {id: a, type: tool_call, toolName: t, toolInput: &i {.inf: x}}\n"
            "- {id: b, type: tool_call, toolName: t, toolInput: *i}",
            ["steps[0].toolInput..inf: a key must be a string (got .inf); quote it in YAML"],
        ),
    ],
)
def test_a_yaml_key_that_is_no_string_is_one_problem_named_by_its_key(
    text: str, expected: list[str]
) -> None:
    # The same problem five times over, as `variables[1].[key]` (found by a review of the DAG
    # inputs): the entry was never set aside, so every pass found it again.
    with pytest.raises(InvalidWorkflow) as caught:
        parse_definition(text, format="yaml")
    assert [f"{p.path}: {p.message}" for p in caught.value.problems] == expected


def test_a_step_that_is_not_an_object_keeps_the_others_checked() -> None:
    document = workflow({"id": "a", "prompt": "x"}, "oops", {"id": "c", "dependsOn": ["zz"]})
    assert problems(document) == [
        'steps[1]: must be an object (got "oops")',
        "steps[2].prompt: required for a dispatch step",
        'steps[2].dependsOn[0]: unknown step "zz"',
    ]


@pytest.mark.parametrize(
    ("value", "shown"), [(None, "null"), (5, "5"), (["dispatch"], '["dispatch"]')]
)
def test_a_type_that_is_not_text_is_shown_as_json_with_no_guess(value: Any, shown: str) -> None:
    assert problems(workflow({"id": "a", "type": value, "prompt": "x"})) == [
        "steps[0].type: must be a string, one of dispatch, skill, condition, parallel, handoff, "
        f"tool_call, delay, notify (got {shown})"
    ]


def test_a_bad_type_does_not_add_rules_of_the_wrong_type() -> None:
    document = workflow({"id": "a", "type": "skil", "skill": "web-search"})
    assert problems(document) == [
        'steps[0].type: unknown step type "skil" (did you mean "skill"?); use one of '
        "dispatch, skill, condition, parallel, handoff, tool_call, delay, notify"
    ]


@pytest.mark.parametrize(
    ("data", "options", "expected"),
    [
        ('{"name": "x",', {}, "not valid JSON: Expecting property name enclosed in double quotes"),
        ("name: [unclosed", {}, "not valid YAML: "),
        (
            "name: x\n  bad: indent: here",
            {},
            "not valid YAML: mapping values are not allowed in this context at line 2, column 6",
        ),
        ("- a\n- b", {}, "a workflow must be an object with name and steps, not a list"),
        ("", {}, "a workflow must be an object with name and steps, not empty"),
        (b"\xff\xfe", {}, "not UTF-8 text"),
        ("name: x", {"format": "json"}, "not valid JSON"),
    ],
)
def test_unreadable_documents_say_why(
    data: str | bytes, options: dict[str, Any], expected: str
) -> None:
    [problem] = problems(data, **options)
    assert problem.startswith(expected)


def test_all_problems_at_once_shape_and_rules_together() -> None:
    document = {
        "name": "bad name!",
        "variables": {"topic": ""},
        "steps": [
            {"id": "research", "prompt": "About {{topc}}", "dependsOn": ["summarize"]},
            {
                "id": "summarize",
                "prompt": "{{steps.research.outpt}}",
                "dependsOn": ["research", "reserch"],
            },
            {"id": "check", "type": "condition", "if": "{{topic}} == technical", "then": "check"},
            {"id": "wait", "type": "delay", "delay": "5", "onError": "abort"},
            {"id": "research", "prompt": "again", "timeout": "-1s", "dependOn": []},
        ],
    }
    assert problems(document) == [
        'name: "bad name!" may use only letters, digits, "-" and "_"',
        'steps[0].prompt: unknown variable "topc" (did you mean "topic"?); declare it in variables',
        "steps[0].dependsOn[0]: dependency cycle research -> summarize -> research",
        'steps[1].dependsOn[1]: unknown step "reserch" (did you mean "research"?)',
        'steps[1].prompt: unknown step field "outpt" in {{steps.research.outpt}}; '
        "use output, status or error",
        "steps[2].then: a step cannot branch to itself",
        "steps[2].if: column 14: unexpected name \"technical\"; quote text ('technical') "
        "or use a {{template}}",
        'steps[3].onError: must be "stop", "skip" or "retry" (got "abort")',
        'steps[3].delay: invalid duration "5": missing unit after "5" (ns, us, µs, ms, s, m, h)',
        'steps[4].dependOn: unknown field "dependOn" (did you mean "dependsOn"?)',
        'steps[4].id: duplicate step id "research" (first at steps[0])',
        'steps[4].timeout: duration "-1s" cannot have a sign; durations are never negative',
    ]


@pytest.mark.parametrize(("bad", "code"), [("\u0000", None), ("\udc00", "U+DC00")])
def test_every_unstorable_text_is_reported_at_once_by_its_own_path(
    bad: str, code: str | None
) -> None:
    # Only the first was reported: a document with three took three saves to hear of them all.
    document = {
        "name": "u4",
        "description": bad,
        "variables": {"v": f"a{bad}"},
        "steps": [
            {"id": f"s{bad}", "prompt": "x"},
            {"id": "t", "type": "tool_call", "toolName": "x", "toolInput": {f"k{bad}": "1"}},
        ],
    }
    why = (
        "contains a NUL character (U+0000), which cannot be stored"
        if code is None
        else f"contains a lone surrogate ({code}), which cannot be stored"
    )
    assert problems(json.dumps(document)) == [
        f"description: {why}",
        f"variables.v: {why}",
        f"steps[0].id: {why}",
        f"steps[1].toolInput: {why}",
    ]


def test_invalid_workflow_lists_problems_in_its_message() -> None:
    error = InvalidWorkflow([Problem("name", "required"), Problem("", "top")])
    assert str(error) == "invalid workflow (2 problem(s)):\n  name: required\n  top"
    assert error.problems[0].to_payload() == {"path": "name", "message": "required"}


def test_format_path() -> None:
    assert format_path(("steps", 2, "dependsOn", 0)) == "steps[2].dependsOn[0]"
    assert format_path(("steps", 1, "parallel", 0, "prompt")) == "steps[1].parallel[0].prompt"
    assert format_path(("timeout",)) == "timeout"


def test_the_documentation_examples_say_what_the_code_does() -> None:
    doc = (Path(__file__).parents[4] / "docs/dag-workflows.md").read_text()
    good, bad = re.findall(r"```json\n(.*?)```", doc, re.DOTALL)[:2]
    assert parse_definition(good).name == "content-pipeline"
    listed = re.search(r"the answer lists:\n\n```\n(.*?)```", doc, re.DOTALL)
    assert listed is not None
    assert problems(bad) == listed.group(1).splitlines()


def _nested_parallel(depth: int) -> dict[str, Any]:
    step: dict[str, Any] = {"id": "leaf", "prompt": "x"}
    for level in range(depth):
        step = {"id": f"p{level}", "type": "parallel", "parallel": [step]}
    return {"name": "deep", "steps": [step]}


@pytest.mark.parametrize(
    "data",
    [
        '{"name": "deep", "steps": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "name: deep\nsteps: " + "[" * 5_000 + "]" * 5_000,
        json.dumps(_nested_parallel(400)),
        _nested_parallel(400),
        "name: deep\nsteps: &loop [*loop]\n",  # a YAML alias that holds itself
    ],
    ids=["json", "yaml", "json-steps", "mapping", "yaml-cycle"],
)
def test_a_deeply_nested_document_is_a_problem_not_a_crash(data: str | dict[str, Any]) -> None:
    [problem] = problems(data)
    assert "nested too deeply" in problem


def _repeating(prompt_chars: int, steps: int) -> str:
    """A YAML workflow whose steps share one prompt through an alias."""
    lines = ["name: repeats", f"description: &prompt {'x' * prompt_chars}", "steps:"]
    lines += [f"  - {{id: s{i}, agent: kohaku, prompt: *prompt}}" for i in range(steps)]
    return "\n".join(lines)


def test_yaml_aliases_may_not_write_out_past_the_size_limit() -> None:
    # 100 KB of YAML was saved as a 5 MB workflow, which no reply could carry afterwards.
    [problem] = problems(_repeating(100_000, 50))
    written = r"is ([\d,]+) characters as JSON, its YAML aliases written out; "
    found = re.fullmatch(written + "a workflow may have at most 524,288", problem)
    assert found is not None, problem
    assert int(found.group(1).replace(",", "")) > 5_000_000
    assert len(parse_definition(_repeating(100_000, 4)).steps) == 4


_HUGE = "1" + "0" * 5000  # over Python's 4,300 digits for reading an integer


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            '{"name": "w", "steps": [{"id": "a", "prompt": "x", "retryMax": ' + _HUGE + "}]}",
            "not valid JSON: a number has more than 4300 digits",
        ),
        (
            f"name: w\nsteps:\n  - id: a\n    prompt: x\n    retryMax: {_HUGE}\n",
            "not valid YAML: a number has more than 4300 digits",
        ),
        (
            "name: w\ndescription: !!timestamp 2024-13-45\nsteps:\n  - {id: a, prompt: x}\n",
            "not valid YAML: month must be in 1..12",
        ),
    ],
    ids=["json-number", "yaml-number", "yaml-explicit-date"],
)
def test_a_value_the_reader_cannot_build_is_a_problem_not_a_crash(data: str, expected: str) -> None:
    assert problems(data) == [expected]


def test_an_unquoted_yaml_date_is_text_as_no_field_holds_a_date() -> None:
    # Read as a date, "2024-01-05" was refused as not a string, and "2024-13-45" crashed.
    for date in ("2024-01-05", "2024-13-45", "2024-01-05T10:00:00Z"):
        text = f"name: w\ndescription: {date}\nsteps:\n  - id: a\n    prompt: on {date}\n"
        definition = parse_definition(text)
        assert (definition.description, definition.steps[0].prompt) == (date, f"on {date}")
