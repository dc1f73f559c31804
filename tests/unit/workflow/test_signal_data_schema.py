"""The JSON schema published for a signal's `data` and `shared` takes what the workflow
service keeps and refuses what it refuses with a NUL character (found by schemathesis: the
OpenAPI document allowed any string, and a generated client's signal was refused 422)."""

from __future__ import annotations

from typing import Any

import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.signal_data import STEP_RECORD_KEYS
from baton_contracts.storable import NUL_FREE_PATTERN
from baton_contracts.workflow_api import WorkflowSignal
from baton_notifier.entrypoints.workflow_bodies import SignalBody
from baton_workflow.service.signal_requests import check_data

from .json_schema_subset import meets

SCHEMA = WorkflowSignal.model_json_schema()


def kept(name: str, value: dict[str, Any]) -> bool:
    try:
        check_data(WorkflowSignal.model_validate({name: value}))
    except RemoteError as refused:
        [detail] = refused.body.details
        assert refused.code == ErrorCode.INVALID
        assert detail.field.startswith(f"signal.{name}")
        assert "NUL character (U+0000)" in detail.message
        return False
    return True


@pytest.mark.parametrize("name", ["data", "shared"])
@pytest.mark.parametrize(
    "value",
    [
        {},
        {"note": "hi\n\tthere", "n": 1.5, "ok": True, "none": None, "ids": [1, "two", []]},
        {"Имя": "Алекс", "deep": {"deeper": [{"k": "v"}]}, "": ""},
        {"note": "a\u0000b"},
        {"a\u0000": 1},
        {"deep": {"deeper": [{"k": "\u0000"}]}},
        {"deep": {"deeper": [{"\u0000": "v"}]}},
        {"list": ["ok", ["\u0000"]]},
    ],
)
def test_the_schema_takes_what_the_workflow_service_keeps(name: str, value: Any) -> None:
    assert meets(value, SCHEMA["properties"][name], SCHEMA["$defs"]) is kept(name, value)


def test_every_string_and_key_of_the_schema_states_the_pattern() -> None:
    for name in ("data", "shared"):
        assert SCHEMA["properties"][name]["propertyNames"] == {"pattern": NUL_FREE_PATTERN}
        assert "NUL character (U+0000)" in SCHEMA["properties"][name]["description"]
    branches = SCHEMA["$defs"]["SignalValue"]["anyOf"]
    assert {"type": "string", "pattern": NUL_FREE_PATTERN} in branches
    [mapping] = [b for b in branches if b["type"] == "object"]
    assert mapping["propertyNames"] == {"pattern": NUL_FREE_PATTERN}


BODY = SignalBody.model_json_schema()


@pytest.mark.parametrize(
    "data",
    [
        {"user_name": "Alex", "started": "x", "messages_count": 2},
        *({key: 1} for key in sorted(STEP_RECORD_KEYS)),
        {"deep": {"started_at": "a nested key is the signal's own"}},
    ],
)
def test_a_persons_signal_data_meets_the_gateways_schema_exactly_when_kept(data: Any) -> None:
    # The keys the step's own record keeps are refused in a person's signal (an agent's has
    # them left out): the gateway's body, a person's, says so in `propertyNames`.
    schema = BODY["properties"]["data"]
    try:
        check_data(WorkflowSignal.model_validate({"data": data}))
        kept = True
    except RemoteError as refused:
        assert refused.body.details[0].field == f"signal.data.{next(iter(data))}"
        kept = False
    assert meets(data, schema, BODY["$defs"]) is kept
