"""A signal's `data` nested past the limit is refused in Baton's own words."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from baton_contracts.signal_data import MAX_SIGNAL_DATA_DEPTH, SignalData


def nested(levels: int) -> dict[str, Any]:
    inner: dict[str, Any] = {}
    for _ in range(levels):
        inner = {"a": inner}
    return inner


def test_data_nested_too_deep_is_refused_without_pydantics_value_error_prefix() -> None:
    # The gateway's detail read "body.data: value error, nests more than 32 levels deep;
    # ...": pydantic's wording of a ValueError, which no other refusal carries (found by a
    # probe of POST /api/workflows/{id}/signal).
    with pytest.raises(ValidationError) as refused:
        TypeAdapter(SignalData).validate_python(nested(MAX_SIGNAL_DATA_DEPTH + 1))
    [error] = refused.value.errors()
    limit = MAX_SIGNAL_DATA_DEPTH
    assert error["msg"] == f"nests more than {limit} levels deep; the limit is {limit}"
    assert error["loc"] == ()


def test_data_as_deep_as_the_limit_is_taken() -> None:
    assert TypeAdapter(SignalData).validate_python(nested(MAX_SIGNAL_DATA_DEPTH - 1))
