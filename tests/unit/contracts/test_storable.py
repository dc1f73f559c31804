"""The one walk over a JSON value that finds what no store can keep, by its path."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from baton_contracts.agent_api import RunTask
from baton_contracts.dag_api import CancelDagRun, StartDagRun
from baton_contracts.storable import (
    NUL_FREE_PATTERN,
    NUL_PROBLEM,
    NulFreeText,
    all_unstorable,
    first_unstorable,
    format_path,
)
from baton_contracts.workflow_api import RecordExchange, SendMessage, SignalWorkflow


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"note": "a\u0000b"}, "data.note"),
        ({"notes": ["ok", "a\u0000b"]}, "data.notes[1]"),
        ({"k\u0000": 1}, "data"),
        ({"a": [{"b": "\u0000"}], "z": "\u0000"}, "data.a[0].b"),
    ],
)
def test_a_nul_is_found_by_its_path_first_in_document_order(value: Any, path: str) -> None:
    found = first_unstorable(value)
    assert found is not None
    assert (found.path("data"), found.kind, found.problem) == (path, "nul", NUL_PROBLEM)


def test_every_problem_is_found_in_document_order_each_by_its_path() -> None:
    value = {
        "a": "\u0000",
        "b": ["ok", "x\ud800", {"k\udfff": 1, "j\u0000": 2}],
        "c": nested(3),
        "d": float("nan"),
    }
    found = all_unstorable(value, max_depth=3)
    assert [(f.path("data"), f.kind) for f in found] == [
        ("data.a", "nul"),
        ("data.b[1]", "surrogate"),
        ("data.b[2]", "surrogate"),
        ("data.b[2]", "nul"),
        ("data.c.a.a", "depth"),
        ("data.d", "number"),
    ]
    assert first_unstorable(value, max_depth=3) == found[0]
    assert all_unstorable({"a": [1, "b"]}) == []


def test_an_empty_key_is_named_in_brackets_not_after_a_dangling_dot() -> None:
    assert format_path(("variables", ""), "body") == 'body.variables[""]'
    assert format_path(("", "a", 0)) == '[""].a[0]'
    found = first_unstorable({"variables": {"": "\u0000"}})
    assert found is not None and found.path("body") == 'body.variables[""]'


def test_nul_is_not_looked_for_when_not_asked() -> None:
    assert first_unstorable({"note": "\u0000"}, nul=False) is None


def test_nesting_past_the_limit_names_the_first_container_too_deep() -> None:
    assert first_unstorable(nested(32), max_depth=32) is None
    found = first_unstorable(nested(33), max_depth=32)
    assert found is not None and found.kind == "depth"
    assert found.path() == ".".join(["a"] * 32)


def test_a_shared_or_self_holding_node_ends_the_walk() -> None:
    shared: list[Any] = ["x"]
    for _ in range(60):  # 2**60 paths, each node once per depth
        shared = [shared, shared]
    found = first_unstorable({"steps": shared}, max_depth=32)
    assert found is not None and found.kind == "depth"
    looped: list[Any] = []
    looped.append(looped)
    found = first_unstorable(looped, max_depth=32)
    assert found is not None and found.kind == "depth"


def test_a_value_that_can_be_stored_has_no_problem() -> None:
    assert first_unstorable({"a": [1, 2.5, None, True, "текст", {"b": "😀"}]}, max_depth=3) is None


@pytest.mark.parametrize(
    ("number", "shown"), [(float("nan"), "NaN"), (1e999, "Infinity"), (-1e999, "-Infinity")]
)
def test_a_number_json_has_none_for_is_found_by_its_path(number: float, shown: str) -> None:
    found = first_unstorable({"a": [0.5, number]})
    assert found is not None and (found.path("data"), found.kind) == ("data.a[1]", "number")
    assert found.problem.startswith(f"is {shown}, which is not a JSON number")
    assert first_unstorable({"a": number}, numbers=False) is None


def test_a_float_field_of_a_wire_message_refuses_nan_and_infinity() -> None:
    body = b'{"user_id":"u","agent":"a","step_id":"s","run_id":"r","prompt":"p",'
    for bad in (b"NaN", b"Infinity", b"1e999"):
        with pytest.raises(ValidationError, match="finite number"):
            RunTask.model_validate_json(
                body + b'"idempotency_key":"k","timeout_seconds":' + bad + b"}"
            )


@pytest.mark.parametrize(
    ("value", "path", "code"),
    [({"t": "a\ud800"}, "data.t", "U+D800"), ({"k\udfff": 1}, "data", "U+DFFF")],
)
def test_a_lone_surrogate_is_found_by_its_path(value: Any, path: str, code: str) -> None:
    found = first_unstorable(value, nul=False, numbers=False)
    assert found is not None and (found.path("data"), found.kind) == (path, "surrogate")
    assert found.problem == f"contains a lone surrogate ({code}), which cannot be stored"


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (
            lambda: SignalWorkflow(user_id="u", instance_id="i", command_id="a\0", signal={}),
            "command_id",
        ),
        (lambda: RecordExchange(user_id="u", instance_id="i", command_id="\0"), "command_id"),
        (
            lambda: SendMessage(user_id="u", instance_id="i", client_message_id="m\0", text="hi"),
            "client_message_id",
        ),
        (lambda: StartDagRun(user_id="u", name="w", variables={"v": "x\0"}), "variables.v"),
        (lambda: StartDagRun(user_id="u", name="w", request_id="r\0"), "request_id"),
        # Kept in the run's log: the append failed, and the cancel answered 500.
        (lambda: CancelDagRun(user_id="u", run_id="r", reason="wrong\0"), "reason"),
    ],
)
def test_ids_and_run_variables_refuse_a_nul_by_name(message: Any, field: str) -> None:
    # Each goes into PostgreSQL as it is, which refuses U+0000 with an internal error.
    with pytest.raises(ValidationError) as refused:
        message()
    [error] = refused.value.errors()
    assert ".".join(str(part) for part in error["loc"]) == field
    assert error["msg"] == NUL_PROBLEM


@pytest.mark.parametrize("text", ["", "id-1", "Имя 名字\n", "a\u0000b", "\u0000"])
def test_a_nul_free_text_states_in_its_schema_the_pattern_it_is_held_to(text: str) -> None:
    # The pattern is only stated (the refusal is `_without_nul`'s, naming the problem), so
    # it must take exactly what the check takes: a fuzzer or a client reads it as the rule.
    schema = TypeAdapter(NulFreeText).json_schema()
    assert schema == {"type": "string", "pattern": NUL_FREE_PATTERN}
    try:
        TypeAdapter(NulFreeText).validate_python(text)
        taken = True
    except ValidationError:
        taken = False
    assert (re.search(NUL_FREE_PATTERN, text) is not None) is taken
