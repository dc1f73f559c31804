"""The `if` grammar: comparisons, && || ! and parentheses, truthiness; never eval."""

from __future__ import annotations

import re

import pytest

from baton_workflow.domain.dag.condition_nodes import compare, is_truthy
from baton_workflow.domain.dag.condition_tokens import ConditionError
from baton_workflow.domain.dag.conditions import parse_condition
from baton_workflow.domain.dag.templates import RenderContext, StepOutcome, StepRef, VariableRef

CONTEXT = RenderContext(
    variables={"type": "technical", "count": "12", "empty": "", "flag": "false", "padded": " 7\n"},
    steps={"check": StepOutcome(status="success", output="yes"), "zero": StepOutcome(output="0")},
)


def holds(text: str) -> bool:
    return parse_condition(text).evaluate(CONTEXT)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{type}} == 'technical'", True),
        ('{{type}} == "technical"', True),
        ("{{type}} != 'technical'", False),
        ("{{type}} == 'creative'", False),
        ("{{count}} > 9", True),  # numeric: as text "12" < "9"
        ("{{count}} >= 12", True),
        ("{{count}} < 12.5", True),
        ("{{count}} <= 11", False),
        ("{{count}} == 12.0", True),
        ("'b' > 'a'", True),
        ("{{padded}} == 7", True),
        ("'pre-{{type}}' == 'pre-technical'", True),
    ],
)
def test_comparisons(text: str, expected: bool) -> None:
    assert holds(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{steps.check.output}}", True),
        ("{{empty}}", False),
        ("{{flag}}", False),
        ("{{steps.zero.output}}", False),
        ("'FALSE'", False),
        ("true", True),
        ("false", False),
        ("!{{empty}}", True),
        ("!!{{type}}", True),
    ],
)
def test_truthiness_as_the_seed_says(text: str, expected: bool) -> None:
    assert holds(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true || false && false", True),  # && binds tighter than ||
        ("(true || false) && false", False),
        ("!true || true", True),  # ! binds tighter than ||
        ("!(true || true)", False),
        ("{{type}} == 'technical' && {{count}} > 10", True),
        ("{{type}} == 'creative' || ({{count}} > 10 && !{{empty}})", True),
        ("({{type}} == 'technical') == true", True),
    ],
)
def test_precedence_and_parentheses(text: str, expected: bool) -> None:
    assert holds(text) is expected


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("__import__('os')", 'unexpected name "__import__"', 1),
        ("{{type}} == technical", 'unexpected name "technical"', 13),
        ("{{type}} = 'x'", 'unexpected character "="', 10),
        ("({{type}} == 'x'", 'expected ")"', 17),
        ("{{type}} ==", "expected a value, found end of expression", 12),
        ("", "expected a value, found end of expression", 1),
        ("'unclosed", "unclosed string", 1),
        ("{{type", "unclosed {{", 1),
        ("1 < 2 < 3", "comparisons do not chain", 7),
        ("true true", 'unexpected "true" after a complete expression', 6),
        ("{{steps.check.outpt}} == 'x'", 'unknown step field "outpt"', 1),
        ("a.b", 'unexpected name "a"', 1),
    ],
)
def test_parse_errors_name_the_problem_and_its_column(text: str, message: str, column: int) -> None:
    with pytest.raises(ConditionError, match=re.escape(message)) as caught:
        parse_condition(text)
    assert caught.value.position == column - 1
    assert str(caught.value).startswith(f"column {column}: ")


def test_nothing_is_ever_evaluated_as_python() -> None:
    for text in ("__import__('os').system('true')", "open('/etc/passwd')", "1 if 1 else 0"):
        with pytest.raises(ConditionError):
            parse_condition(text)


def test_references_are_listed_for_validation() -> None:
    condition = parse_condition("{{type}} == 'x' && !{{steps.check.output}}")
    assert condition.references == (VariableRef("type"), StepRef("check", "output"))


def test_helpers() -> None:
    assert is_truthy(" yes ") and not is_truthy(" 0 ") and not is_truthy("")
    assert compare("10", ">", "9") and compare("b", ">", "a") and not compare("10", ">", "9a")


@pytest.mark.parametrize(
    ("left", "comparator", "right", "expected"),
    [
        ("12345678901234567891", "==", "12345678901234567892", False),  # 19-digit ids
        ("12345678901234567891", "!=", "12345678901234567892", True),
        ("9007199254740993", ">", "9007199254740992", True),  # 2**53 + 1
        ("0.1", "==", "0.10000000000000001", False),
        ("1" * 400, "<", "1" * 399 + "2", True),  # past a float's range
        ("-0.50", "==", "-0.5", True),
    ],
)
def test_numbers_compare_exactly_however_many_digits(
    left: str, comparator: str, right: str, expected: bool
) -> None:
    assert compare(left, comparator, right) is expected


@pytest.mark.parametrize(
    ("text", "column"),
    [("!" * 5000 + "1", 65), ("(" * 5000 + "1" + ")" * 5000, 65), ("!(" * 2500 + "1", 65)],
)
def test_deep_nesting_is_a_parse_error_not_a_crash(text: str, column: int) -> None:
    with pytest.raises(ConditionError, match="nested too deeply") as caught:
        parse_condition(text)
    assert caught.value.position == column - 1


def test_nesting_up_to_the_limit_parses() -> None:
    depth = 64
    assert holds("(" * depth + "{{type}} == 'technical'" + ")" * depth)
    assert holds("!" * depth + "1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 && " * 5000 + "1", True),
        ("0 || " * 5000 + "1", True),
        ("1 && " * 5000 + "0", False),
        ("{{type}} == 'x' || " * 3000 + "{{count}} > 9", True),
    ],
)
def test_long_runs_of_and_or_evaluate_without_crashing(text: str, expected: bool) -> None:
    assert holds(text) is expected


def test_the_deepest_allowed_nesting_evaluates() -> None:
    text = "!(1 && " * 32 + "{{type}} == 'technical'" + ")" * 32
    assert holds(text) is True  # an even number of "!"
    assert parse_condition(text).references == (VariableRef("type"),)
