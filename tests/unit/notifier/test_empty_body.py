"""A body that did not come is named `body` and told what to send, whatever type was said."""

from __future__ import annotations

import httpx
import pytest
from pydantic import BaseModel

from baton_contracts import Command, ErrorCode, Query, RemoteError

from .conftest import FakeRequester


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


@pytest.mark.parametrize("url", ["/workflows/w/run", "/workflow-runs/r1/cancel"])
@pytest.mark.parametrize("null", [b"null", b" null\n"])
async def test_a_null_body_where_the_body_is_optional_is_422_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    null: bytes,
) -> None:
    # FastAPI handed `null` to an optional body as None, as if none came: the run started
    # (or was cancelled) with the defaults, while a route whose body is required refused it.
    headers = {**auth, "Content-Type": "application/json"}
    response = await client.post(url, content=null, headers=headers)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail == {
        "field": "body",
        "message": "must be a JSON object, not null; send {} or no body at all for the defaults",
    }
    assert requester.sent == []


@pytest.mark.parametrize("url", ["/workflows/w/run", "/workflow-runs/r1/cancel"])
async def test_no_body_or_an_empty_object_where_the_body_is_optional_reaches_the_owner(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester, url: str
) -> None:
    requester.answer = refuse_as_missing
    assert (await client.post(url, headers=auth)).status_code == 404
    assert (await client.post(url, json={}, headers=auth)).status_code == 404
    assert len(requester.sent) == 2


def refuse_as_missing(_: Query | Command) -> BaseModel:
    raise RemoteError.of(ErrorCode.NOT_FOUND, "no such run")
