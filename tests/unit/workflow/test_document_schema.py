"""The schema the gateway publishes for a workflow document takes every document the workflow
service takes, and each document it refuses for a rule the schema states (schemathesis sent
a YAML body that was a string, which the document allowed and the service refused)."""

from __future__ import annotations

from typing import Any

import pytest

from baton_notifier.entrypoints.document_schema import DOCUMENT_SCHEMA
from baton_workflow.domain.dag.definition import WorkflowDefinition
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.problems import InvalidWorkflow

from .json_schema_subset import meets

STEP = {"id": "wait", "type": "delay", "delay": "1s"}
VALID = {"name": "my-workflow", "steps": [STEP]}


def taken(document: Any, fmt: str = "json") -> bool:
    try:
        parse_definition(document, format="yaml") if fmt == "yaml" else parse_definition(document)
    except InvalidWorkflow:
        return False
    return True


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"description": "Réserver un vol", "variables": {"city": "Paris", "x_1-y": ""}},
        {"timeout": "1h", "budget": 2, "onSuccess": "done", "onFailure": None},
        {"budget": 0.5, "timeout": None},
        {"name": "a" * 128},
        {"name": ""},
        {"name": "a" * 129},
        {"name": "my workflow"},
        {"name": "w\n"},
        {"name": "ü"},
        {"name": 7},
        {"name": None},
        {"steps": []},
        {"steps": None},
        {"steps": ["wait"]},
        {"description": None},
        {"description": "a\u0000b"},
        {"variables": {"city": 1}},
        {"variables": {"a city": "Paris"}},
        {"variables": {"city": "Par\u0000is"}},
        {"variables": []},
        {"budget": -1},
        {"budget": True},
        {"budget": "2"},
        {"timeout": 60},
        {"onSuccess": "\u0000"},
        {"extra": 1},
        {"on_success": "snake case is not a field of the document"},
    ],
)
def test_a_document_meets_the_schema_exactly_when_the_service_takes_it(
    changes: dict[str, Any],
) -> None:
    document = {**VALID, **changes}
    assert meets(document, DOCUMENT_SCHEMA) is taken(document), changes


@pytest.mark.parametrize("text", ["''\n", "[]\n", "name\n", "", "7\n", "null\n"])
def test_yaml_that_is_no_mapping_is_refused_as_the_schema_says(text: str) -> None:
    assert not taken(text, "yaml")
    assert DOCUMENT_SCHEMA["type"] == "object"


def test_yaml_written_as_a_mapping_is_taken() -> None:
    assert taken("name: my-workflow\nsteps:\n  - {id: wait, type: delay, delay: 1s}\n", "yaml")


def test_the_schema_names_every_top_level_field_of_the_document_and_no_other() -> None:
    aliases = {field.alias or name for name, field in WorkflowDefinition.model_fields.items()}
    assert set(DOCUMENT_SCHEMA["properties"]) == aliases
    assert DOCUMENT_SCHEMA["additionalProperties"] is False


@pytest.mark.parametrize(
    ("changes", "rule"),
    [
        ({"steps": [{}]}, "each step's fields"),
        ({"steps": [STEP, STEP]}, "unique step ids"),
        ({"steps": [{**STEP, "dependsOn": ["nope"]}]}, "`dependsOn`"),
        ({"timeout": "soon"}, "durations"),
        ({"variables": {"env": "x"}}, "`env`"),
    ],
)
def test_rules_the_schema_cannot_state_are_in_its_description(
    changes: dict[str, Any], rule: str
) -> None:
    document = {**VALID, **changes}
    assert meets(document, DOCUMENT_SCHEMA) and not taken(document)
    assert rule in DOCUMENT_SCHEMA["description"]
