"""A NUL character (U+0000) is refused by name: PostgreSQL's JSON cannot store one."""

from __future__ import annotations

from typing import Any

import pytest

from .test_http_api import auth, signal

pytestmark = pytest.mark.postgres


@pytest.fixture
def sqlite_url(postgres_url: str) -> str:
    """The `workflow` fixture's database, on PostgreSQL for this module."""
    return postgres_url


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"data": {"note": "a\u0000b"}}, "data.note"),
        ({"data": {"notes": ["ok", "a\u0000b"]}}, "data.notes[1]"),
        ({"data": {"k\u0000": 1}}, "data"),
        ({"shared": {"name": "\u0000"}}, "shared.name"),
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
