"""Whether a value meets a JSON schema, for the keywords Baton's published schemas use: enough
to hold a schema to what the workflow service takes, with no JSON Schema library installed."""

from __future__ import annotations

import re
from typing import Any

TYPES: dict[str, Any] = {
    "string": str,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}
KNOWN = {
    "$ref", "anyOf", "type", "pattern", "items", "minItems", "minimum", "required",
    "properties", "additionalProperties", "propertyNames", "description", "title", "not",
    "enum",
}  # fmt: skip


def meets(value: Any, schema: dict[str, Any], defs: dict[str, Any] | None = None) -> bool:
    """Whether `value` meets `schema` (`$ref`s looked up by their last part in `defs`)."""
    assert set(schema) <= KNOWN, set(schema) - KNOWN  # a keyword this does not check
    if "$ref" in schema:
        return meets(value, (defs or {})[schema["$ref"].rpartition("/")[2]], defs)
    if "anyOf" in schema:
        return any(meets(value, branch, defs) for branch in schema["anyOf"])
    if "not" in schema and meets(value, schema["not"], defs):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if "type" in schema:
        kind = TYPES[schema["type"]]
        if not isinstance(value, kind) or (isinstance(value, bool) and schema["type"] != "boolean"):
            return False
    if isinstance(value, str):
        return "pattern" not in schema or ecma_search(schema["pattern"], value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value >= schema.get("minimum", value)
    if isinstance(value, list):
        return len(value) >= schema.get("minItems", 0) and all(
            meets(item, schema.get("items", {}), defs) for item in value
        )
    if isinstance(value, dict):
        return _object_meets(value, schema, defs)
    return True


def ecma_search(pattern: str, text: str) -> bool:
    """`re.search` as ECMA-262 reads `pattern`: a final `$` matches only at the very end
    (Python's also before a final line end, which would take `"name\n"` for a name)."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.search(pattern, text) is not None


def _object_meets(value: dict[str, Any], schema: dict[str, Any], defs: Any) -> bool:
    if not set(schema.get("required", ())) <= set(value):
        return False
    properties = schema.get("properties", {})
    for key, item in value.items():
        if not meets(key, schema.get("propertyNames", {}), defs):
            return False
        rest = schema.get("additionalProperties", True)
        inner = properties.get(key, rest)
        if inner is False or (inner is not True and not meets(item, inner, defs)):
            return False
    return True
