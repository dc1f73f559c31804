"""What the workflow service put in a turn's step context, read without trusting its shape."""

from __future__ import annotations

from typing import Any


def context_count(step_context: dict[str, Any], key: str) -> int | None:
    """A count the workflow put in the step's context, or None when it is not there."""
    value = step_context.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
