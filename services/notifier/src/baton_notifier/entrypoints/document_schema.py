"""The OpenAPI request body of the routes that take a workflow document (seed 004).

The route reads the body as text and the workflow service parses and checks it, naming every
problem by its JSON path; the route never validates it against this schema. The schema states
what a document must be wherever JSON Schema can say it exactly: the same object whether it
is sent as JSON or as YAML (a YAML body that is a string, a list or empty is refused, as is a
JSON one), its top-level fields and their types, the name's pattern and at least one step.
The rules that relate fields and steps (step types, dependencies, durations, templates) stay
in words, in the description: a step's schema would be the workflow service's whole model.
"""

from __future__ import annotations

from typing import Any

from baton_contracts.dag_base import WORKFLOW_NAME_PATTERN
from baton_contracts.storable import NUL_FREE_PATTERN
from baton_notifier.domain.media import YAML_TYPES

VARIABLE_NAME_PATTERN = r"^[A-Za-z0-9_-]+$"
"""A variable's name in a document, as the workflow service checks it."""

_TEXT: dict[str, Any] = {"type": "string", "pattern": NUL_FREE_PATTERN}
_OPTIONAL_TEXT: dict[str, Any] = {"anyOf": [_TEXT, {"type": "null"}]}

DOCUMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "A workflow (seed 004): `name` and at least one step. No string in it may hold a NUL "
        "character (U+0000). The workflow service checks the rest and names each problem by "
        "its JSON path in `details` (422): each step's fields for its `type`, unique step "
        "ids, `dependsOn` naming known steps without a cycle, durations (`timeout`, "
        "`delay`, `retryDelay`), `{{...}}` templates, and variable names other than `steps` "
        "and `env`; on `/validate`, `name` must also be the path's `{name}`"
    ),
    "required": ["name", "steps"],
    "properties": {
        "name": {"type": "string", "pattern": WORKFLOW_NAME_PATTERN},
        "description": _TEXT,
        "variables": {
            "type": "object",
            "propertyNames": {"pattern": VARIABLE_NAME_PATTERN},
            "additionalProperties": _TEXT,
        },
        "timeout": _OPTIONAL_TEXT,
        "budget": {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}]},
        "onSuccess": _OPTIONAL_TEXT,
        "onFailure": _OPTIONAL_TEXT,
        "steps": {"type": "array", "minItems": 1, "items": {"type": "object"}},
    },
    "additionalProperties": False,
}
"""A workflow document as JSON, or as the YAML mapping it is written as."""

DOCUMENT_BODY: dict[str, Any] = {
    "requestBody": {
        "description": "The workflow document: seed 004's JSON (also as application/*+json), "
        "or YAML with a YAML content type, which must be a mapping as the JSON is an object; "
        "any other type is 415",
        "content": {
            kind: {"schema": DOCUMENT_SCHEMA} for kind in ("application/json", *YAML_TYPES)
        },
    }
}
"""`openapi_extra` of the routes that read a workflow document from the body."""
