"""What the CLI reads from the gateway's answers, checked once, where a body is decoded.

A 2xx answer whose body is not JSON, or lacks a key the CLI reads, or holds one as another JSON
type (a proxy's HTML page, a truncated answer, another server on the port) is one problem
naming the key and what is wrong, instead of a traceback somewhere in a command. Only what the
CLI reads is checked: keys a newer gateway adds pass, and the body is used as it came.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from baton_cli.errors import CliError

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class Kind:
    """A JSON value that is not a container: what a message calls it, and the test."""

    name: str
    test: Callable[[Any], bool]


@dataclass(frozen=True)
class Shape:
    """A JSON object: the keys the CLI needs, and those it reads when present and not null."""

    needs: Mapping[str, Expected] = field(default_factory=dict)
    reads: Mapping[str, Expected] = field(default_factory=dict)


@dataclass(frozen=True)
class ListOf:
    """A JSON array whose every item is `item`."""

    item: Expected


Expected = Kind | Shape | ListOf
Json = dict[str, Any]

TEXT = Kind("a string", lambda value: isinstance(value, str))
ID = Kind("a non-empty string", lambda value: isinstance(value, str) and value.strip() != "")
INTEGER = Kind("an integer", lambda value: isinstance(value, int) and not isinstance(value, bool))
FLAG = Kind("true or false", lambda value: isinstance(value, bool))
OBJECTS = ListOf(Shape())

# One shape per route, named for the answer (the routes are in `gateway_client`).
NOTHING = Shape()
WORKFLOW_LIST = Shape(needs={"workflows": OBJECTS})
WORKFLOW_DOCUMENT = Shape(
    needs={"definition": Shape(reads={"steps": ListOf(Shape(reads={"dependsOn": ListOf(TEXT)}))})}
)
WORKFLOW_SAVED = Shape(
    needs={"name": TEXT, "version": INTEGER, "version_id": TEXT},
    reads={"changed": FLAG, "action": TEXT},
)
VALIDATION = Shape(needs={"valid": Kind("true", lambda value: value is True)})
RUN_ACCEPTED = Shape(needs={"run_id": ID}, reads={"version_id": TEXT, "mode": TEXT})
RUN_LIST = Shape(needs={"runs": OBJECTS})
RUN_DETAIL = Shape(
    needs={"run_id": ID, "status": TEXT},
    reads={"steps": OBJECTS, "handoffs": OBJECTS, "messages": OBJECTS, "estimate": Shape()},
)
RUN_CANCEL = Shape(needs={"run_id": ID, "status": TEXT, "reason": TEXT})
VERSION_LIST = Shape(needs={"versions": OBJECTS})
ROLLED_BACK = Shape(needs={"version": INTEGER, "version_id": TEXT})
VERSION_DIFF = Shape(needs={"diff": TEXT})
HEALTH = Shape(needs={"status": Kind('"ok"', lambda value: value == "ok"), "checks": Shape()})


class UnreadableBody(CliError):
    """A 2xx answer the CLI cannot read: the message names the route and what is wrong."""


def read_body(response: httpx.Response, shape: Shape) -> Json:
    """The decoded body of a 2xx answer, or `UnreadableBody` when it does not have `shape`.

    An empty body is `{}`: right for a route that answers nothing (204), missing keys otherwise.
    """
    body: Any = {}
    found = "the body is empty" if shape.needs else None
    if response.content:
        try:
            body = response.json()
        except ValueError:
            found = f"the body is not JSON: {response.text[:200]!r}"
        except RecursionError:
            found = "the body nests too deeply to read"
        else:
            found = problem(body, shape)
    if found is not None:
        request = response.request
        route = request.url.copy_with(query=None)
        raise UnreadableBody(
            f"unexpected answer from the gateway to {request.method} {route} "
            f"(HTTP {response.status_code}): {found}"
        )
    result: Json = body
    return result


def problem(value: Any, expected: Expected, where: str = "") -> str | None:
    """The first way `value` is not `expected`, as `path: what is wrong`; None when it fits."""
    if isinstance(expected, Shape):
        return _object_problem(value, expected, where)
    if isinstance(expected, ListOf):
        if not isinstance(value, list):
            return _wrong(where, "an array", value)
        found = (problem(item, expected.item, f"{where}[{i}]") for i, item in enumerate(value))
        return next((p for p in found if p is not None), None)
    return None if expected.test(value) else _wrong(where, expected.name, value)


def _object_problem(value: Any, shape: Shape, where: str) -> str | None:
    if not isinstance(value, dict):
        return _wrong(where, "an object", value)
    if (missing := next((key for key in shape.needs if key not in value), None)) is not None:
        return f"{_path(where, missing)}: missing"
    present = {key: e for key, e in shape.reads.items() if value.get(key) is not None}
    found = (
        problem(value[key], e, _path(where, key)) for key, e in {**shape.needs, **present}.items()
    )
    return next((p for p in found if p is not None), None)


def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _wrong(where: str, expected: str, value: Any) -> str:
    if isinstance(value, dict | list):
        shown = "an object" if isinstance(value, dict) else "an array"
    else:
        shown = json.dumps(value, ensure_ascii=False)
        shown = shown if len(shown) <= 60 else shown[:59] + "…"
    return f"{where or 'the body'}: expected {expected}, got {shown}"
