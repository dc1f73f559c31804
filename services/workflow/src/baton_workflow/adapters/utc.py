"""Timestamps read back from SQL: SQLite keeps no zone, and everything Baton stores is UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def aware(value: Any) -> Any:
    """`value` with UTC attached when it is a naive datetime; anything else unchanged."""
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value
