"""A `{{` that opens no template is kept as text, as before, and saving it warns (never refuses):
each templated field names where its first such `{{` is, in document order."""

from __future__ import annotations

from typing import Any

import pytest

from baton_workflow.domain.dag.parsing import read_definition
from baton_workflow.domain.dag.problems import Problem, warning_lines
from baton_workflow.domain.dag.templates import RenderContext, render, scan_template

from .conftest import workflow

KEPT = 'opens a template that is never closed ("}}"); it is kept as text'


def warnings(document: dict[str, Any]) -> list[str]:
    _, found = read_definition(document)
    return [str(w) for w in found]


def test_every_templated_field_warns_at_its_first_unclosed_opening_in_document_order() -> None:
    document = workflow(
        {"id": "research", "prompt": "r"},
        {"id": "summary", "prompt": "Summary: {{steps.research.output", "dependsOn": ["research"]},
        # agent and permissionMode: an agent name or mode with braces is refused already.
        {"id": "ask", "model": "m{{", "provider": "{{p}", "prompt": "x"},
        {"id": "search", "type": "skill", "skill": "web", "skillArgs": ["ok", "{{topic}} {{more"]},
        {"id": "fetch", "type": "tool_call", "toolName": "http-get",
         "toolInput": {"url": "https://x/?q={{topic}}", "body": "{{ {{"}},
        {"id": "tell", "type": "notify", "notifyMsg": "a }} b {{c", "notifyTo": "{{"},
        # Quoted, a "{{" is text; the escaped quote counts as the one character it stands for.
        {"id": "check", "type": "condition", "if": r"'it\'s {{x' == {{topic}}", "then": "research"},
        {"id": "both", "type": "parallel", "parallel": [{"id": "sub", "prompt": "{{topic}}{{"}]},
        variables={"topic": "agents"},
        onSuccess="done {{",
        onFailure="{{steps.research.error}} and {{",
    )  # fmt: skip
    assert warnings(document) == [
        f'onSuccess: "{{{{" at character 6 {KEPT}',
        f'onFailure: "{{{{" at character 30 {KEPT}',
        f'steps[1].prompt: "{{{{" at character 10 {KEPT}',
        f'steps[2].model: "{{{{" at character 2 {KEPT}',
        f'steps[2].provider: "{{{{" at character 1 {KEPT}',
        f'steps[3].skillArgs[1]: "{{{{" at character 11 {KEPT}',
        f'steps[4].toolInput.body: "{{{{" at character 1 {KEPT}',
        f'steps[5].notifyMsg: "{{{{" at character 8 {KEPT}',
        f'steps[5].notifyTo: "{{{{" at character 1 {KEPT}',
        f'steps[6].if: "{{{{" at character 8 {KEPT}',
        f'steps[7].parallel[0].prompt: "{{{{" at character 10 {KEPT}',
    ]


@pytest.mark.parametrize(
    "text",
    ["{{unclosed", "a }} {{b", "{{topic}} {{b", "{{}", "{{{", "{{ {{", "}}{{", "x {{ y } z"],
)
def test_the_warning_points_at_what_rendering_keeps_as_text(text: str) -> None:
    position = scan_template(text).unclosed
    assert position is not None
    rendered = render(text, RenderContext(variables={"topic": "agents"}))
    assert text[position : position + 2] == "{{"
    assert rendered.endswith(text[position:])
    assert "{{" not in rendered[: len(rendered) - len(text) + position]


@pytest.mark.parametrize("text", ["", "plain", "{{topic}}", "a {{topic}} b }}", "{ {", "{x}{"])
def test_a_text_whose_templates_all_close_has_no_warning(text: str) -> None:
    assert scan_template(text).unclosed is None
    document = workflow({"id": "a", "prompt": text or "x"}, variables={"topic": "agents"})
    assert warnings(document) == []


def test_a_document_with_an_unclosed_template_is_still_valid_and_keeps_its_text() -> None:
    definition, found = read_definition(workflow({"id": "a", "prompt": "{{unclosed"}))
    assert definition.steps[0].prompt == "{{unclosed"
    assert [w.path for w in found] == ["steps[0].prompt"]


def test_a_reply_lists_the_first_twenty_warnings_and_counts_the_others() -> None:
    document = workflow(*({"id": f"s{i}", "prompt": "{{"} for i in range(4000)))
    _, found = read_definition(document)
    lines = warning_lines(found)
    assert len(found) == 4000
    assert lines[:20] == [f'steps[{i}].prompt: "{{{{" at character 1 {KEPT}' for i in range(20)]
    assert lines[20:] == ["and 3,980 more warnings"]
    assert warning_lines([Problem("x", "y")] * 20) == ["x: y"] * 20
