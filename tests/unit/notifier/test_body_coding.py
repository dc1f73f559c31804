"""A body sent compressed (`Content-Encoding`) is refused up front with 415, on every route.

Read as the bytes that came, a gzipped workflow document was refused as "the body is not
UTF-8", and a gzipped chat message as "body is not valid JSON", blaming text that was fine.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import httpx
import pytest

from baton_notifier.bootstrap import Notifier

from .conftest import FakeRequester

THING = json.dumps({"thing_id": "t1"}).encode()
FITTING = {"instance_id": "i1", "name": "w", "run_id": "r1", "from_id": "w@1", "to_id": "w@2"}


def _refusal(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 415, response.text
    assert response.headers["accept-encoding"] == "identity"  # RFC 7694
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "unsupported_media_type"
    return error


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "GZIP", "gzip, identity", "x-zip"])
async def test_a_compressed_body_is_415_naming_the_coding_sent(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester, coding: str
) -> None:
    headers = {**auth, "Content-Type": "application/json", "Content-Encoding": coding}
    error = _refusal(
        await client.post("/api/things", content=gzip.compress(THING), headers=headers)
    )
    assert error["message"] == (
        f"request body is compressed (Content-Encoding: {coding}); send it uncompressed"
    )
    assert error["details"] == [
        {
            "field": "header.content-encoding",
            "message": f"is {coding!r}; request bodies must be sent uncompressed "
            "(no Content-Encoding, or 'identity')",
        }
    ]
    assert requester.sent == []  # nothing reached the owner


@pytest.mark.parametrize("coding", ["identity", "Identity", " identity , ", ""])
async def test_identity_is_no_compression_and_passes(
    client: httpx.AsyncClient, auth: dict[str, str], coding: str
) -> None:
    headers = {**auth, "Content-Type": "application/json", "Content-Encoding": coding}
    response = await client.post("/api/things", content=THING, headers=headers)
    assert response.status_code == 200, response.text


async def test_a_chunked_compressed_body_is_refused_too(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    async def stream() -> Any:
        yield gzip.compress(THING)

    headers = {**auth, "Content-Type": "application/json", "Content-Encoding": "gzip"}
    response = await client.post("/api/things", content=stream(), headers=headers)
    assert "content-length" not in response.request.headers
    _refusal(response)


async def test_a_request_without_a_body_is_not_refused_for_the_header(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.get("/api/me", headers={**auth, "Content-Encoding": "gzip"})
    assert response.status_code == 200, response.text


async def test_every_route_that_reads_a_body_refuses_a_compressed_one(
    notifier: Notifier, client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # One check before every route, not one per route: a route added later has it too.
    spec = notifier.app.openapi()
    taking = [
        (method, path)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    ]
    assert ("post", "/workflows") in taking and (
        "post",
        "/api/workflows/{instance_id}/signal",
    ) in taking
    headers = {**auth, "Content-Type": "application/json", "Content-Encoding": "gzip"}
    for method, path in taking:
        url = path.format(**FITTING)
        response = await client.request(method, url, content=gzip.compress(b"{}"), headers=headers)
        assert _refusal(response)["details"][0]["field"] == "header.content-encoding", path
    assert requester.sent == []
