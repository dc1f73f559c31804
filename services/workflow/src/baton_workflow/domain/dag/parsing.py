"""Turn a JSON or YAML workflow document into a validated `WorkflowDefinition`, or every problem.

Shape problems (a wrong type, an unknown field) and rule problems (an unknown dependency, a
cycle) come back together in one `InvalidWorkflow`: the offending fields are set aside, the
rest is validated, and rule problems about a field already reported are left out.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Collection, Mapping
from typing import Any, Literal

import yaml  # safe_load parses text; no I/O
from pydantic import ValidationError

from baton_contracts.dag_base import MAX_DEFINITION_CHARS
from baton_contracts.documents import (
    NOT_TEXT_KEY,
    TooDeep,
    as_yaml_writes,
    json_chars,
    read_json,
    yaml_loader,
)
from baton_contracts.storable import all_unstorable, key_path
from baton_contracts.storable import format_path as storable_path
from baton_workflow.domain.dag.definition import STEP_TYPES, Step, WorkflowDefinition
from baton_workflow.domain.dag.problems import (
    InvalidWorkflow,
    Problem,
    did_you_mean,
    in_document_order,
)
from baton_workflow.domain.dag.validation import check_definition

Format = Literal["json", "yaml"]
_STEP_FIELDS = tuple(f.alias or name for name, f in Step.model_fields.items())
_TOP_FIELDS = tuple(f.alias or name for name, f in WorkflowDefinition.model_fields.items())
_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "tuple_type": "a list",
    "list_type": "a list",
}
_MAX_PASSES = 5
MAX_DEPTH = 32
"""How deep objects and lists may nest in a document (a real workflow needs about 7 levels);
deeper would exhaust Python's stack in the JSON/YAML reader or in validation."""
_TOO_DEEP = f"nested too deeply: at most {MAX_DEPTH} levels of objects and lists"


def _unreadable_value(exc: ValueError) -> str:
    """What a reader's ValueError (not a syntax error) means: a value Python cannot build."""
    if "integer string conversion" in str(exc):
        return f"a number has more than {sys.get_int_max_str_digits()} digits"
    return str(exc)


def parse_definition(
    data: bytes | str | dict[str, Any],
    *,
    format: Format | None = None,
    env_allowlist: Collection[str] = frozenset(),
    stored: bool = False,
) -> WorkflowDefinition:
    """The validated definition; InvalidWorkflow listing every problem otherwise.

    `format` is "json" or "yaml"; None picks JSON for text starting with "{", YAML otherwise.
    `env_allowlist` names the `{{env.KEY}}` keys the workflow may read. `stored`: a version
    saved before, read to start a run (see `validate_definition`).
    """
    return read_definition(data, format=format, env_allowlist=env_allowlist, stored=stored)[0]


def read_definition(
    data: bytes | str | dict[str, Any],
    *,
    format: Format | None = None,
    env_allowlist: Collection[str] = frozenset(),
    stored: bool = False,
) -> tuple[WorkflowDefinition, list[Problem]]:
    """`parse_definition`, and the warnings of the valid definition, in document order: what
    is saved as written but may not be what its author meant (see `check_definition`)."""
    raw = load_document(data, format)
    keys = _drop_keys_not_text(raw)
    definition, problems, bad = _shape(raw)
    problems = keys + problems
    warnings: list[Problem] = []
    if definition is not None:
        found = check_definition(definition, env_allowlist=env_allowlist, stored=stored)
        problems += [p for p in found.problems if not any(_within(p.path, b) for b in bad)]
        warnings = found.warnings
    if problems:
        raise InvalidWorkflow(in_document_order(problems))
    assert definition is not None
    return definition, warnings


def load_document(
    data: bytes | str | dict[str, Any], format: Format | None = None
) -> dict[str, Any]:
    """The document as a mapping (JSON or YAML text decoded); InvalidWorkflow if it cannot be."""
    if isinstance(data, dict):
        return _shallow(data)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidWorkflow(
                [Problem("", f"not UTF-8 text ({exc.reason} at byte {exc.start})")]
            ) from None
    chosen = format or ("json" if data.lstrip().startswith("{") else "yaml")
    loaded = _load_json(data) if chosen == "json" else _load_yaml(data)
    if not isinstance(loaded, dict):
        kind = "empty" if loaded is None else f"a {type(loaded).__name__}"
        raise InvalidWorkflow(
            [Problem("", f"a workflow must be an object with name and steps, not {kind}")]
        )
    document = _shallow(loaded)
    if chosen == "yaml":  # only YAML can repeat a part of itself: a JSON document is its text
        _check_expanded(document)
    return document


def _check_expanded(document: dict[str, Any]) -> None:
    """InvalidWorkflow when the document, its YAML aliases written out, is over the limit its
    text is held to: 100 KB repeating one prompt 50 times was saved as 5 MB, which no reply
    could then carry, and 150 KB of aliased steps took the service seconds to check."""
    size = json_chars(document)
    if size > MAX_DEFINITION_CHARS:
        raise InvalidWorkflow(
            [
                Problem(
                    "",
                    f"is {size:,} characters as JSON, its YAML aliases written out; "
                    f"a workflow may have at most {MAX_DEFINITION_CHARS:,}",
                )
            ]
        )


def _shallow(document: dict[str, Any]) -> dict[str, Any]:
    """The document, if no object or list in it is nested deeper than `MAX_DEPTH` and no
    string holds a lone surrogate (stored, it made the workflow unreadable) or a NUL character
    (PostgreSQL refuses one: the save failed with an internal error). Each such value is a
    problem of its own, all of them reported together.

    Numbers are left to validation, which names the field's own rule (no field takes any
    JSON value, so a NaN can never be stored unchecked).
    """
    found = all_unstorable(document, max_depth=MAX_DEPTH, numbers=False)
    if found:
        problems = [Problem(f.path(), _TOO_DEEP if f.kind == "depth" else f.problem) for f in found]
        raise InvalidWorkflow(in_document_order(problems))
    return document


def _load_json(text: str) -> Any:
    try:
        return read_json(text)  # refuses a key given twice
    except json.JSONDecodeError as exc:
        message = f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        raise InvalidWorkflow([Problem("", message)]) from None
    except RecursionError:  # the reader recurses once per level of nesting
        raise InvalidWorkflow([Problem("", _TOO_DEEP)]) from None
    except ValueError as exc:  # after JSONDecodeError, which is one
        raise InvalidWorkflow([Problem("", f"not valid JSON: {_unreadable_value(exc)}")]) from None


def _load_yaml(text: str) -> Any:
    try:
        # A SafeLoader that reads dates as text and refuses a key given twice.
        return yaml.load(text, Loader=yaml_loader())
    except (RecursionError, TooDeep):
        raise InvalidWorkflow([Problem("", _TOO_DEEP)]) from None
    except ValueError as exc:  # an explicit `!!timestamp 2024-13-45`, a 5,000-digit number
        raise InvalidWorkflow([Problem("", f"not valid YAML: {_unreadable_value(exc)}")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise InvalidWorkflow([Problem("", f"not valid YAML: {reason}{where}")]) from None


def _drop_keys_not_text(document: dict[str, Any]) -> list[Problem]:
    """One problem for each key that is no string (YAML reads `null:`, `1.5:`, `true:` as
    null, a number, a boolean), named by the key as YAML writes it; the entry is taken out.

    Left to pydantic, such a key was reported up to five times (its location carried Python's
    `None`, or `1` for `true`, which named no entry to set aside), and inside a step without
    the hint. Every mapping is walked once: YAML aliases share one, and a key taken out of it
    is taken out wherever it appears (the expanded size is already bounded).
    """
    problems: list[Problem] = []
    seen: set[int] = set()

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            bad = [key for key in node if not isinstance(key, str)]
            for key in bad:
                shown = as_yaml_writes(key)
                where = key_path(path, shown)
                problems.append(Problem(where, NOT_TEXT_KEY.format(shown)))
            if id(node) in seen:
                return
            seen.add(id(node))
            for key in bad:
                del node[key]
            for key, value in node.items():
                walk(value, key_path(path, key))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{path}[{index}]")

    walk(document, "")
    return problems


def _shape(raw: dict[str, Any]) -> tuple[WorkflowDefinition | None, list[Problem], list[str]]:
    """The definition (None if it cannot be salvaged), shape problems, paths set aside."""
    problems: list[Problem] = []
    set_aside: list[str] = []
    candidate: dict[str, Any] | None = raw
    for _ in range(_MAX_PASSES):
        assert candidate is not None
        try:
            definition = WorkflowDefinition.model_validate(candidate, by_alias=True, by_name=False)
            return definition, problems, set_aside
        except ValidationError as exc:
            errors = exc.errors()
            problems += [Problem(format_path(e["loc"]), _message(e)) for e in errors]
            set_aside += [format_path(_owner(e["loc"])) for e in errors if e["loc"]]
            candidate = _set_aside(candidate, [e["loc"] for e in errors])
            if candidate is None:
                break
    return None, problems, set_aside


def _set_aside(
    raw: dict[str, Any], locations: list[tuple[int | str, ...]]
) -> dict[str, Any] | None:
    """A copy without the fields at fault; a broken step becomes an empty placeholder."""
    result = copy.deepcopy(raw)
    for loc in locations:
        if not loc or not _drop(result, loc):
            return None
    return result


def _drop(document: dict[str, Any], loc: tuple[int | str, ...]) -> bool:
    """Set aside what is at `loc`; a variable with a bad default stays declared (with "")."""
    loc = _owner(loc)
    node: Any = document
    for key in loc[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return True  # already set aside by an earlier location
    last = loc[-1]
    if loc[:-1] == ("variables",) and isinstance(node, dict) and last in node:
        node[last] = ""  # still declared, so templates naming it are not "unknown variable"
    elif isinstance(node, dict) and last in node:
        del node[last]
    elif isinstance(node, list) and isinstance(last, int) and last < len(node):
        node[last] = {}  # keep the indexes of the steps after it
    return True


def _owner(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """Where to cut: a bad list item takes its list field; a bad step type takes the step."""
    if loc[-1] == "type" and len(loc) >= 3:
        return loc[:-1]
    if isinstance(loc[-1], int) and len(loc) >= 2 and loc[-2] not in ("steps", "parallel"):
        return loc[:-1]
    return loc


def _message(error: Mapping[str, Any]) -> str:
    kind, loc, value = error["type"], error["loc"], error.get("input")
    if kind == "extra_forbidden":
        known = _STEP_FIELDS if len(loc) > 1 else _TOP_FIELDS
        return f'unknown field "{loc[-1]}"{did_you_mean(str(loc[-1]), known)}'
    if kind == "literal_error" and loc[-1] == "type":
        if not isinstance(value, str):  # null or 5 is no misspelt type: show it as JSON has it
            return f"must be a string, one of {', '.join(STEP_TYPES)} (got {_show(value)})"
        hint = did_you_mean(value, STEP_TYPES)
        return f'unknown step type "{value}"{hint}; use one of {", ".join(STEP_TYPES)}'
    if kind == "literal_error" and loc[-1] == "onError":
        return f'must be "stop", "skip" or "retry" (got {_show(value)})'
    if kind in _TYPE_NAMES:
        return f"must be {_TYPE_NAMES[kind]} (got {_show(value)})"
    return str(error["msg"])


def _show(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def format_path(loc: tuple[int | str, ...]) -> str:
    """`("steps", 2, "dependsOn", 0)` as `steps[2].dependsOn[0]`."""
    return storable_path(loc)


def _within(path: str, bad: str) -> bool:
    return path == bad or path.startswith((f"{bad}.", f"{bad}["))
