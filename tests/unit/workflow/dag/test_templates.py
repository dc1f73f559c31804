"""Templates: parse once, render many; skipped steps render empty; env comes from the caller."""

from __future__ import annotations

import re

import pytest

from baton_workflow.domain.dag import templates
from baton_workflow.domain.dag.templates import (
    EnvRef,
    RenderContext,
    StepOutcome,
    StepRef,
    TemplateError,
    VariableRef,
    parse_template,
    render,
    scan_references,
)

CONTEXT = RenderContext(
    variables={"topic": "AI agents", "type": "technical"},
    steps={
        "research": StepOutcome(status="success", output="five points"),
        "broken": StepOutcome(status="error", output="partial", error="HTTP 500"),
        "skipped": StepOutcome(status="skipped", output="stale"),
    },
    env={"REGION": "eu"},
)


def test_every_reference_kind_renders() -> None:
    text = (
        "{{topic}}|{{steps.research.output}}|{{steps.broken.status}}"
        "|{{steps.broken.error}}|{{env.REGION}}"
    )
    assert render(text, CONTEXT) == "AI agents|five points|error|HTTP 500|eu"


def test_whitespace_inside_braces_is_tolerated() -> None:
    assert render("About {{ topic }} and {{  steps.research.output }}", CONTEXT) == (
        "About AI agents and five points"
    )


def test_a_skipped_step_renders_empty_output_but_says_skipped() -> None:
    assert render("[{{steps.skipped.output}}] {{steps.skipped.status}}", CONTEXT) == "[] skipped"


def test_unknown_names_render_empty() -> None:
    assert render("<{{nope}}><{{steps.ghost.output}}><{{env.HOME}}>", CONTEXT) == "<><><>"


def test_a_pending_step_has_status_pending() -> None:
    assert render("{{steps.ghost.status}}", CONTEXT) == "pending"


def test_parse_once_render_many() -> None:
    template = parse_template("Hi {{topic}}")
    assert parse_template("Hi {{topic}}") is template
    assert template.render(CONTEXT) == "Hi AI agents"
    assert template.render(RenderContext(variables={"topic": "LLM safety"})) == "Hi LLM safety"


def test_references_are_typed() -> None:
    template = parse_template("{{a}} {{steps.search-papers.output}} {{env.KEY}}")
    assert template.references == (
        VariableRef("a"),
        StepRef("search-papers", "output"),
        EnvRef("KEY"),
    )


def test_text_without_templates_is_kept_as_is() -> None:
    assert render("plain {single} braces", CONTEXT) == "plain {single} braces"


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("x {{}}", "empty template {{}}", 2),
        ("{{steps.research.outpt}}", 'unknown step field "outpt"', 0),
        ("{{steps.research}}", "should be {{steps.ID.output}}", 0),
        ("ab {{two words}}", '"{{two words}}" is not a variable', 3),
        ("{{env.A B}}", 'invalid env key "A B"', 0),
    ],
)
def test_malformed_references_are_errors_with_position(
    text: str, message: str, position: int
) -> None:
    with pytest.raises(TemplateError, match=re.escape(message)) as caught:
        parse_template(text)
    assert caught.value.position == position


def test_scan_reports_every_reference_and_every_error() -> None:
    found = scan_references("{{a}} {{}} {{steps.x.bad}} {{b}}")
    assert [type(f).__name__ for f in found] == [
        "VariableRef",
        "TemplateError",
        "TemplateError",
        "VariableRef",
    ]


def test_only_a_short_templates_parse_is_kept() -> None:
    # Every parse was kept, 4,096 of them: a few documents of 512 KB prompts held gigabytes.
    short = "Summarise {{topic}} for the team"
    long = "{{topic}} " * (templates.CACHED_TEMPLATE_CHARS // 10 + 1)
    kept = templates._parse_cached.cache_info().currsize
    assert parse_template(short) is parse_template(short)
    assert parse_template(long) is not parse_template(long)
    assert parse_template(long).render(RenderContext(variables={"topic": "x"})).startswith("x x")
    assert templates._parse_cached.cache_info().currsize <= kept + 1


def test_templates_are_found_where_the_lazy_brace_pattern_finds_them() -> None:
    # The scan replaced `\{\{(.*?)\}\}` (quadratic on many "{{" and no "}}"): same spans.
    pattern = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
    texts = ["", "{{", "}}", "{{}}", "{{{x}}", "{{x}}}", "{{a}} {{b", "a {{ b }} c }} {{d}}"]
    texts += ["".join("{}x \n"[(i * 7 + j * 3) % 5] for j in range(i % 23)) for i in range(4000)]
    for text in texts:
        found = [(m.start(), m.end()) for m in pattern.finditer(text)]
        assert list(templates._templates(text)) == found, text


def test_a_long_text_of_openings_never_closed_parses_at_once_as_text() -> None:
    # 200,000 characters of "{{" (a prompt's limit) took minutes to parse: each "{{" was
    # tried against the rest of the text. Parsed and scanned now in linear time, it is text.
    text = "{{" * 100_000
    assert parse_template(text).parts == (text,)
    assert templates.scan_template(text).unclosed == 0


def test_a_problem_quotes_a_long_templates_start_and_length_not_all_of_it() -> None:
    # A 100,000-character template was quoted whole in its problem, in a 422 listing them all.
    with pytest.raises(TemplateError) as raised:
        parse_template("{{" + "x y" * 40_000 + "}}")
    message = str(raised.value)
    assert len(message) < 200, message
    assert message.startswith('"{{x yx y') and "… (120,000 characters)}}" in message
    with pytest.raises(TemplateError, match=r'^"\{\{topc x\}\}" is not a variable'):
        parse_template("{{topc x}}")  # a short one whole, as before
