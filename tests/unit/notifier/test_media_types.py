"""A body is read only as a media type its route takes; any other is 415 naming the type sent.

The DAG document routes read any body as JSON (or YAML by its type): text/plain, a form, even
a multipart upload went to the workflow service as a document. The JSON routes answered 422
"input should be a valid dictionary" for a body that was fine but typed wrong.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from baton_contracts import Command, ErrorCode, Query, RemoteError
from baton_contracts.dag_api import (
    DagValidation,
    DagWorkflowSaved,
    SaveDagWorkflow,
    ValidateDagWorkflow,
)
from baton_notifier.bootstrap import Notifier

from .conftest import FakeRequester

DOCUMENT = b'{"name": "w", "steps": []}'  # the test gateway takes 64 bytes
YAML_DOCUMENT = b"name: w\nsteps: []\n"
FITTING = {"instance_id": "i1", "name": "w", "run_id": "r1", "from_id": "w@1", "to_id": "w@2"}
DOCUMENT_TYPES = (
    "JSON (application/json or application/*+json) or as YAML "
    "(application/yaml, application/x-yaml, text/yaml, text/x-yaml)"
)


def _valid(message: Query | Command) -> BaseModel:
    assert isinstance(message, ValidateDagWorkflow)
    return DagValidation(name=message.name)


def _refused_type(response: httpx.Response) -> str:
    """The message of a 415's one detail, which names the Content-Type header."""
    assert response.status_code == 415, response.text
    error = response.json()["error"]
    assert error["code"] == "unsupported_media_type"
    [detail] = error["details"]
    assert detail["field"] == "header.content-type"
    return str(detail["message"])


@pytest.mark.parametrize("url", ["/workflows", "/workflows/w/validate"])
@pytest.mark.parametrize(
    ("content_type", "sent"),
    [
        ("text/plain", "is 'text/plain'"),
        ("application/x-www-form-urlencoded", "is 'application/x-www-form-urlencoded'"),
        ("application/xml", "is 'application/xml'"),
        (None, "was not sent"),
    ],
)
async def test_a_document_of_another_type_is_415_and_never_reaches_the_owner(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    content_type: str | None,
    sent: str,
) -> None:
    headers = dict(auth) if content_type is None else {**auth, "Content-Type": content_type}
    response = await client.post(url, content=DOCUMENT, headers=headers)
    assert _refused_type(response) == f"{sent}; send the document as {DOCUMENT_TYPES}"
    assert requester.sent == []  # nothing stored, nothing checked


@pytest.mark.parametrize("url", ["/workflows", "/workflows/w/validate"])
async def test_a_multipart_upload_is_never_read_as_a_document(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester, url: str
) -> None:
    # A file field holding a JSON document (short: the test gateway takes 64 bytes).
    body = b'--x\r\nContent-Disposition: form-data; name="f"\r\n\r\n{}\r\n--x--\r\n'
    headers = {**auth, "Content-Type": "multipart/form-data; boundary=x"}
    response = await client.post(url, content=body, headers=headers)
    assert _refused_type(response).startswith("is 'multipart/form-data; boundary=x'")
    assert requester.sent == []


@pytest.mark.parametrize(
    ("content_type", "body", "read_as"),
    [
        ("application/json", DOCUMENT, "json"),
        ("application/json; charset=utf-8", DOCUMENT, "json"),
        ("application/vnd.baton.workflow+json", DOCUMENT, "json"),
        ("application/yaml", YAML_DOCUMENT, "yaml"),
        ("Application/X-YAML", YAML_DOCUMENT, "yaml"),
        ("text/yaml; charset=utf-8", YAML_DOCUMENT, "yaml"),
        ("text/x-yaml", YAML_DOCUMENT, "yaml"),
    ],
)
async def test_a_json_or_yaml_document_is_read_as_its_type_says(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    content_type: str,
    body: bytes,
    read_as: str,
) -> None:
    requester.answer = _valid
    headers = {**auth, "Content-Type": content_type}
    response = await client.post("/workflows/w/validate", content=body, headers=headers)
    assert response.status_code == 200, response.text
    [sent] = requester.sent
    assert isinstance(sent, ValidateDagWorkflow)
    assert (sent.format, sent.source) == (read_as, body.decode())


async def test_validating_with_no_body_and_no_type_checks_the_stored_document(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = _valid
    response = await client.post("/workflows/w/validate", headers=auth)
    assert response.status_code == 200, response.text
    [sent] = requester.sent
    assert isinstance(sent, ValidateDagWorkflow) and sent.source is None


async def test_saving_with_no_body_is_still_422_naming_the_body(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    response = await client.post("/workflows", headers=auth)
    assert response.status_code == 422, response.text
    assert [d["field"] for d in response.json()["error"]["details"]] == ["body"]
    assert requester.sent == []


async def test_an_optional_json_body_may_be_left_out_with_no_type(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    def refuse(_: Query | Command) -> BaseModel:
        raise RemoteError.of(ErrorCode.NOT_FOUND, "no such workflow")

    requester.answer = refuse
    response = await client.post("/workflows/w/run", headers=auth)
    assert response.status_code == 404, response.text  # it reached the owner
    assert len(requester.sent) == 1


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", b"{}"),
        ("multipart/form-data; boundary=x", b'--x\r\nContent-Disposition: form-data; name="a"'),
        ("application/yaml", b"{}"),  # YAML is for documents only
    ],
)
async def test_every_route_that_reads_a_body_refuses_another_type(
    notifier: Notifier,
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    content_type: str,
    body: bytes,
) -> None:
    # One check in the route class every router uses, not one per route.
    spec = notifier.app.openapi()
    taking: list[tuple[str, str, Any]] = [
        (method, path, operation["requestBody"]["content"])
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    ]
    assert len(taking) >= 8
    for method, path, documented in taking:
        if content_type in documented:
            continue
        url = path.format(**FITTING)
        headers = {**auth, "Content-Type": content_type}
        response = await client.request(method, url, content=body, headers=headers)
        assert f"is {content_type!r}" in _refused_type(response), path
    assert requester.sent == []


def test_the_openapi_document_lists_every_type_a_document_is_read_as(notifier: Notifier) -> None:
    paths = notifier.app.openapi()["paths"]
    for path in ("/workflows", "/workflows/{name}/validate"):
        content = paths[path]["post"]["requestBody"]["content"]
        assert set(content) == {
            "application/json",
            "application/yaml",
            "application/x-yaml",
            "text/yaml",
            "text/x-yaml",
        }
    run = paths["/workflows/{name}/run"]["post"]["requestBody"]["content"]
    assert set(run) == {"application/json"}


def _saved(message: Query | Command) -> BaseModel:
    assert isinstance(message, SaveDagWorkflow)
    return DagWorkflowSaved(name="w", version=1, version_id="w@1", changed=True)


@pytest.mark.parametrize(
    ("url", "content_type", "body"),
    [
        ("/workflows", "application/json", DOCUMENT),
        ("/workflows/w/validate", "application/json", DOCUMENT),
        ("/workflows", "application/yaml", YAML_DOCUMENT),
    ],
)
async def test_a_document_with_a_utf8_byte_order_mark_is_sent_without_it(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    content_type: str,
    body: bytes,
) -> None:
    # Kept in the text, the mark made the owner's JSON reader refuse the document, while
    # every route that reads JSON skips it.
    requester.answer = _saved if url == "/workflows" else _valid
    headers = {**auth, "Content-Type": content_type}
    response = await client.post(url, content=b"\xef\xbb\xbf" + body, headers=headers)
    assert response.status_code in (200, 201), response.text
    [sent] = requester.sent
    assert isinstance(sent, SaveDagWorkflow | ValidateDagWorkflow)
    assert sent.source == body.decode()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])  # with their marks, as Python writes
@pytest.mark.parametrize("url", ["/workflows", "/workflows/w/validate"])
async def test_a_document_in_utf16_or_utf32_gets_the_422_of_every_json_route(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    encoding: str,
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    body = '{"v": 1}'.encode(encoding)
    response = await client.post(url, content=body, headers=headers)
    json_route = await client.post("/workflows/w/run", content=body, headers=headers)
    assert response.status_code == json_route.status_code == 422, response.text
    assert response.json() == json_route.json()
    assert response.json()["error"]["details"] == [
        {"field": "body", "message": "body is not valid JSON: it is not UTF-8 (byte 0)"}
    ]
    assert requester.sent == []


async def test_a_yaml_document_in_utf16_is_422_saying_it_is_not_utf8(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    headers = {**auth, "Content-Type": "application/yaml"}
    response = await client.post("/workflows", content="name: w".encode("utf-16"), headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"] == [
        {"field": "body", "message": "body is not valid YAML: it is not UTF-8 (byte 0)"}
    ]
    assert requester.sent == []
