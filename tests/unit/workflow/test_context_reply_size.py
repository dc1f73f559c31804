"""A context is held to its limits as compact JSON written by Python's `json`
(`signal_requests`), and replied as pydantic writes it: what `chat_replies.SURELY_FITS_CHARS`
counts on is that the reply is never more than a third larger than measured."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic_core import to_json

from baton_contracts.workflow_api import WorkflowSignal

STRINGS = [
    "plain",
    "\x01\x1f\x7f",
    '"\\/',
    "\n\t\r\b\f",
    "Жёлтый",
    "中文",
    "😀🏳️‍🌈",
    "\u2028\u2029",
    "\ufeff",
]


def measured(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def replied(value: dict[str, Any]) -> int:
    """Bytes of `value` as a reply writes it (within a model, less the model's other fields)."""
    empty = len(WorkflowSignal(data={}).model_dump_json().encode())
    return len(WorkflowSignal(data=value).model_dump_json().encode()) - empty + 2


@pytest.mark.parametrize("text", STRINGS)
def test_a_string_is_replied_in_the_bytes_it_was_measured_in(text: str) -> None:
    value = {text: [text * 50]}
    assert replied(value) == measured(value)


def test_a_number_is_replied_in_at_most_a_third_more_than_measured() -> None:
    worst = 1.0
    for exponent in range(-330, 310):
        for mantissa in ("1", "1.5", "2.5", "9.999999999999999", "1.2345678901234567"):
            number = float(f"{mantissa}e{exponent}")
            if number in (0.0, float("inf")):
                continue  # past what a double holds: refused, or 0
            # In a list, each number with its comma: the most numbers a part holds.
            grown = (len(to_json(number)) + 1) / (len(json.dumps(number)) + 1)
            worst = max(worst, grown)
    assert worst == 8 / 6  # `1e-05,` is written `0.00001,`
    value = {"k": [1e-05] * 1000}
    assert replied(value) / measured(value) == pytest.approx(4 / 3, abs=0.01)
