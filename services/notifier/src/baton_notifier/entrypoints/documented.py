"""Constraints the OpenAPI document states that the route's own code checks.

A client generated from the document, or a fuzzer reading it, learns what a field takes. The
check stays where it was: FastAPI enforcing a `pattern` itself would answer with its generic
"String should match pattern" where Baton's message names the field and the form it takes.
"""

from __future__ import annotations

from typing import Any


def documented(pattern: str | None = None, min_length: int | None = None) -> dict[str, Any]:
    """`Query`, `Header` or `Field` keywords that state `pattern` and `min_length` in the
    schema only."""
    schema: dict[str, Any] = {}
    if pattern is not None:
        schema["pattern"] = pattern
    if min_length is not None:
        schema["minLength"] = min_length
    return {"json_schema_extra": schema}
