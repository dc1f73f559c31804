"""A body that did not come is named `body` and told what to send, whatever type was said."""

from __future__ import annotations

import httpx
import pytest


@pytest.mark.parametrize("content_type", ["application/json", "application/merge-patch+json"])
async def test_an_empty_json_body_is_422_saying_it_is_empty(
    client: httpx.AsyncClient, auth: dict[str, str], content_type: str
) -> None:
    # A client that sets Content-Type on every request and sent no body got
    # "body: field required", which named no field the user could find.
    headers = {**auth, "Content-Type": content_type}
    response = await client.post("/api/things", content=b"", headers=headers)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["details"] == [{"field": "body", "message": "is empty; send a JSON object"}]
    assert error["message"] == "request is invalid: body: is empty; send a JSON object"


async def test_a_json_body_of_the_wrong_shape_keeps_its_own_reason(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    response = await client.post("/api/things", content=b"[]", headers=headers)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail["field"] == "body"
    assert "empty" not in detail["message"]
