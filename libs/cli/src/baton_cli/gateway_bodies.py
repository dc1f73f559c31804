"""What the CLI reads from the gateway's answers, checked once, where a body is decoded.

A 2xx answer whose body is not JSON, or lacks a key the CLI reads, or holds one as another JSON
type (a proxy's HTML page, a truncated answer, another server on the port) is one problem
naming the key and what is wrong, instead of a traceback somewhere in a command. Only what the
CLI reads is checked, by pydantic in strict mode (`"1"` is no integer, `true` no number): keys
a newer gateway adds pass, and the body is used as it came, not as pydantic would convert it.
"""

# ruff: noqa: UP013  (one line per route reads as a table; class syntax would double the module)
from __future__ import annotations

import ast
import functools
import json
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from pydantic import BeforeValidator, StrictBool, StringConstraints, TypeAdapter, ValidationError
from typing_extensions import TypedDict  # pydantic takes no `typing.TypedDict` before 3.12

from baton_cli.errors import CliError
from baton_contracts.storable import format_path

if TYPE_CHECKING:
    import httpx
    from pydantic_core import ErrorDetails

Json = dict[str, Any]
Shape = type  # one of the TypedDicts below
Id = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]
# pydantic's Literal[True] also takes 1 and 1.0 (equal in Python): only JSON `true` is.
JsonTrue = Annotated[Literal[True], BeforeValidator(TypeAdapter(StrictBool).validate_python)]

# One shape per route, named for the answer (the routes are in `gateway_client`). A key the CLI
# reads only when it is there and not null is `NotRequired[... | None]`.
NOTHING = TypedDict("NOTHING", {})
WORKFLOW_LIST = TypedDict(
    "WORKFLOW_LIST", {"workflows": list[Json], "next_after": NotRequired[str | None]}
)
Step = TypedDict(
    "Step", {"dependsOn": NotRequired[list[str] | None], "parallel": NotRequired[list[Json] | None]}
)
Definition = TypedDict("Definition", {"steps": NotRequired[list[Step] | None]})
WORKFLOW_DOCUMENT = TypedDict("WORKFLOW_DOCUMENT", {"definition": Definition})
WORKFLOW_SAVED = TypedDict(
    "WORKFLOW_SAVED",
    {
        "name": str,
        "version": int,
        "version_id": str,
        "changed": NotRequired[bool | None],
        "action": NotRequired[str | None],
        "warnings": NotRequired[list[str] | None],
    },
)
VALIDATION = TypedDict("VALIDATION", {"valid": JsonTrue, "warnings": NotRequired[list[str] | None]})
RUN_ACCEPTED = TypedDict(
    "RUN_ACCEPTED",
    {"run_id": Id, "version_id": NotRequired[str | None], "mode": NotRequired[str | None]},
)
RUN_LIST = TypedDict("RUN_LIST", {"runs": list[Json], "next_after": NotRequired[str | None]})
RUN_DETAIL = TypedDict(
    "RUN_DETAIL",
    {
        "run_id": Id,
        "status": str,
        "steps": NotRequired[list[Json] | None],
        "handoffs": NotRequired[list[Json] | None],
        "messages": NotRequired[list[Json] | None],
        "estimate": NotRequired[Json | None],
        "next_steps_after": NotRequired[str | None],
    },
)
RUN_CANCEL = TypedDict("RUN_CANCEL", {"run_id": Id, "status": str, "reason": str})
VERSION_LIST = TypedDict(
    "VERSION_LIST", {"versions": list[Json], "next_after": NotRequired[str | None]}
)
ROLLED_BACK = TypedDict("ROLLED_BACK", {"version": int, "version_id": str})
VERSION_DIFF = TypedDict("VERSION_DIFF", {"diff": str})
HEALTH = TypedDict("HEALTH", {"status": Literal["ok"], "checks": Json})

# What a pydantic error type says was expected, in a JSON reader's words.
EXPECTED = {
    "dict_type": "an object",
    "list_type": "an array",
    "string_type": "a string",
    "string_too_short": "a non-empty string",
    "string_pattern_mismatch": "a non-empty string",
    "int_type": "an integer",
    "bool_type": "true or false",
}


class UnreadableBody(CliError):
    """A 2xx answer the CLI cannot read: the message names the route and what is wrong."""


def read_body(response: httpx.Response, shape: Shape) -> Json:
    """The body of a 2xx answer as decoded, or `UnreadableBody` when it does not have `shape`.

    An empty body is `{}`: right for a route that answers nothing (204), missing keys otherwise.
    """
    try:
        body: Json = response.json() if response.content else {}
        _adapter(shape).validate_python(body, strict=True)
    except ValidationError as error:  # before ValueError, which it is too
        found = _problem(error.errors()[0]) if response.content else "the body is empty"
    except ValueError:
        found = f"the body is not JSON: {response.text[:200]!r}"
    except RecursionError:
        found = "the body nests too deeply to read"
    else:
        return body
    request = response.request
    raise UnreadableBody(
        f"unexpected answer from the gateway to {request.method} "
        f"{request.url.copy_with(query=None)} (HTTP {response.status_code}): {found}"
    )


@functools.cache  # built when a route is first read, not for every route at import
def _adapter(shape: Shape) -> TypeAdapter[Json]:
    return TypeAdapter(shape)


def _problem(error: ErrorDetails) -> str:
    """`path: what is wrong` for one pydantic error, the path as `a.b[0].c`."""
    where = format_path(error["loc"]) or "the body"
    if error["type"] == "missing":
        return f"{where}: missing"
    expected = EXPECTED.get(error["type"])
    if error["type"] == "literal_error":  # pydantic spells the one allowed value in Python
        expected = json.dumps(ast.literal_eval(error["ctx"]["expected"]))
    wrong = f"expected {expected}" if expected else error["msg"]
    return f"{where}: {wrong}, got {_shown(error['input'])}"


def _shown(value: Any) -> str:
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "an array"
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 60 else shown[:59] + "…"
