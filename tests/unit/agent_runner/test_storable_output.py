"""A model's output made storable: what no store can keep is taken out, by its path."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain.output import AgentOutput, Signal
from baton_agent_runner.domain.storable_output import storable_output
from baton_contracts.workflow_api import WorkflowSignal


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def test_output_that_can_be_stored_is_returned_as_it_is() -> None:
    output = AgentOutput(message="hi", workflow_signal=Signal(data=nested(32)))
    assert storable_output(output) == (output, [])


def test_nul_characters_and_keys_holding_them_are_taken_out_and_named() -> None:
    output = AgentOutput(
        message="a\u0000b",
        extracted_data={"facts": {"work": "x\u0000"}, "k\u0000": 1},
        workflow_signal=Signal(action="complete_step", data={"l": ["\u0000", "y"]}),
    )
    stored, changed = storable_output(output)
    assert stored.message == "ab"
    assert stored.extracted_data == {"facts": {"work": "x"}}
    assert stored.workflow_signal == Signal(action="complete_step", data={"l": ["", "y"]})
    assert changed == [
        "message",
        "extracted_data.facts.work",
        "extracted_data",
        "workflow_signal.data.l[0]",
    ]


def test_signal_data_nested_deeper_than_a_signal_may_is_left_out() -> None:
    output = AgentOutput(message="hi", workflow_signal=Signal(data={"ok": 1, "deep": nested(32)}))
    stored, changed = storable_output(output)
    assert stored.workflow_signal is not None
    assert stored.workflow_signal.data["ok"] == 1
    WorkflowSignal(data=stored.workflow_signal.data)  # what the reply carries accepts it
    assert changed == ["workflow_signal.data.deep" + ".a" * 31]


def test_numbers_json_has_none_for_are_left_out() -> None:
    data = {"n": float("nan"), "l": [1.5, float("inf"), -float("inf")], "ok": 2.5}
    output = AgentOutput(message="hi", extracted_data=data, workflow_signal=Signal(data=data))
    stored, changed = storable_output(output)
    assert stored.extracted_data == {"l": [1.5], "ok": 2.5}
    assert stored.workflow_signal == Signal(data={"l": [1.5], "ok": 2.5})
    assert changed[:3] == ["extracted_data.n", "extracted_data.l[1]", "extracted_data.l[2]"]


def test_a_lone_surrogate_becomes_a_replacement_character_and_its_key_is_left_out() -> None:
    # A message with a length limit refuses one when validated; data takes it.
    output = AgentOutput.model_construct(
        message="a\ud800b", extracted_data={"k\udc00": 1, "t": "\udfff"}
    )
    stored, changed = storable_output(output)
    assert (stored.message, stored.extracted_data) == ("a\ufffdb", {"t": "\ufffd"})
    assert changed == ["message", "extracted_data", "extracted_data.t"]
