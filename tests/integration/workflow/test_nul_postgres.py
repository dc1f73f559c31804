"""A NUL character (U+0000) is refused by name: PostgreSQL's JSON cannot store one."""

from __future__ import annotations

from typing import Any

import pytest

from baton_contracts.storable import NUL_PROBLEM

from .test_http_api import auth, signal

pytestmark = pytest.mark.postgres


@pytest.fixture
def sqlite_url(postgres_url: str) -> str:
    """The `workflow` fixture's database, on PostgreSQL for this module."""
    return postgres_url


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"data": {"note": "a\u0000b"}}, "body.data.note"),
        ({"data": {"notes": ["ok", "a\u0000b"]}}, "body.data.notes[1]"),
        ({"data": {"k\u0000": 1}}, "body.data"),
        ({"shared": {"name": "\u0000"}}, "body.shared.name"),
    ],
)
async def test_a_nul_in_signal_data_is_422_and_the_instance_goes_on(
    gateway: Any, body: dict[str, Any], field: str
) -> None:
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "nul")
    )
    instance = started.json()["instance_id"]
    refused = await signal(gateway, "nul", instance, action="stay", **body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["details"][0]["field"] == field
    assert "NUL" in refused.json()["error"]["message"]
    fine = await signal(gateway, "nul", instance, action="stay", data={"note": "ok"})
    assert fine.status_code == 200, fine.text


async def test_a_nul_in_a_command_id_is_422_and_the_instance_goes_on(gateway: Any) -> None:
    # It reached the event log's JSON: the signal failed with an internal error.
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "nul-id")
    )
    instance = started.json()["instance_id"]
    refused = await signal(gateway, "nul-id", instance, action="stay", command_id="a\u0000")
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail == {"field": "body.command_id", "message": NUL_PROBLEM}
    fine = await signal(gateway, "nul-id", instance, action="stay", command_id="a")
    assert fine.status_code == 200, fine.text


async def test_a_nul_in_a_dag_document_or_run_variable_is_422_and_nothing_is_stored(
    gateway: Any,
) -> None:
    headers = auth(gateway, "nul-dag")
    step = {"id": "a", "type": "tool_call", "toolName": "echo", "toolInput": {"text": "{{v}}"}}
    bad = {"name": "w", "variables": {"v": "x\u0000"}, "steps": [step]}
    refused = await gateway.post("/workflows", json=bad, headers=headers)
    assert refused.status_code == 422, refused.text
    expected = [{"field": "body.variables.v", "message": NUL_PROBLEM}]
    assert refused.json()["error"]["details"] == expected
    assert (await gateway.get("/workflows", headers=headers)).json()["workflows"] == []

    saved = await gateway.post("/workflows", json={**bad, "variables": {"v": "x"}}, headers=headers)
    assert saved.status_code == 201, saved.text
    run = await gateway.post(
        "/workflows/w/run", json={"variables": {"v": "\u0000"}}, headers=headers
    )
    assert run.status_code == 422, run.text
    assert run.json()["error"]["details"] == expected
    assert (await gateway.get("/workflows/w/runs", headers=headers)).json()["runs"] == []
