from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.usefixtures("fake_owner")


async def test_a_command_reaches_its_owner_and_the_reply_comes_back(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post("/api/things/t1", headers=auth)
    assert response.status_code == 200
    assert response.json() == {"thing_id": "t1", "user_id": "alice"}


@pytest.mark.parametrize(
    ("code", "status"),
    [("not_found", 404), ("conflict", 409), ("invalid", 422), ("too_large", 413)],
)
async def test_the_owners_typed_error_arrives_as_its_http_status(
    client: httpx.AsyncClient, auth: dict[str, str], code: str, status: int
) -> None:
    response = await client.post(f"/api/things/{code}", headers=auth)
    assert response.status_code == status
    assert response.json() == {
        "error": {
            "code": code,
            "message": "scripted failure",
            "details": [{"field": "thing_id", "message": "scripted"}],
        }
    }


async def test_forbidden_from_the_owner_is_a_plain_404(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post("/api/things/forbidden", headers=auth)
    assert response.status_code == 404
    assert response.json()["error"] == {"code": "not_found", "message": "not found", "details": []}


async def test_no_responder_is_503(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.post("/api/silent/t1", headers=auth)
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "unavailable"
    assert "workflow.cmd.notifier_test_silent_thing" in error["message"]


async def test_a_responder_slower_than_the_timeout_is_503_naming_the_timeout(
    client: httpx.AsyncClient, auth: dict[str, str], fake_owner: Any
) -> None:
    # The fake owner holds "slow" until the module ends, so only the gateway's timeout can answer.
    response = await client.post("/api/things/slow", headers=auth)
    assert response.status_code == 503
    assert response.json()["error"]["message"].endswith("within 0.5s")
    assert not fake_owner.release.is_set()
