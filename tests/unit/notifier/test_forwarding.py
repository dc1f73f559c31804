import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from baton_auth import Identity
from baton_contracts import Command, ErrorCode, ErrorDetail, Query, RemoteError
from baton_contracts.dag_api import (
    CancelDagRun,
    DagWorkflowDeleted,
    DagWorkflowList,
    DeleteDagWorkflow,
    StartDagRun,
)
from baton_notifier.bootstrap import Notifier, build
from baton_notifier.domain.errors import ApiError
from baton_notifier.domain.origins import Origins
from baton_notifier.entrypoints import http_errors
from baton_notifier.settings import NotifierSettings

from .conftest import SECRET, run_accepted


class _Raise:
    def __init__(self, error: RemoteError) -> None:
        self.error = error

    def __call__(self, _: Query | Command) -> BaseModel:
        raise self.error


async def test_a_route_forwards_the_body_and_returns_the_owners_reply(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    response = await client.post("/api/things", json={"thing_id": "t1", "size": 3}, headers=auth)
    assert response.status_code == 200
    assert response.json() == {"thing_id": "t1", "user_id": "alice"}
    sent = requester.sent[-1]
    assert (sent.thing_id, sent.size, sent.user_id) == ("t1", 3, "alice")


async def test_user_id_comes_from_the_token_never_from_the_body(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    body = {"thing_id": "t1", "user_id": "mallory"}
    response = await client.post("/api/things", json=body, headers=auth)
    assert response.json()["user_id"] == "alice"
    assert requester.sent[-1].user_id == "alice"


async def test_the_request_timeout_setting_is_sent_with_every_request(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    await client.post("/api/things", json={"thing_id": "t1"}, headers=auth)
    assert requester.timeouts == [1.5]


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (ErrorCode.NOT_FOUND, 404),
        (ErrorCode.CONFLICT, 409),
        (ErrorCode.INVALID, 422),
        (ErrorCode.TOO_LARGE, 413),
        (ErrorCode.UNAVAILABLE, 503),
        (ErrorCode.INTERNAL, 500),
    ],
)
async def test_each_typed_error_becomes_its_http_status_with_the_common_body(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any, code: ErrorCode, status: int
) -> None:
    details = [ErrorDetail(field="thing_id", message="taken")]
    requester.answer = _Raise(RemoteError.of(code, "owner says no", details))
    response = await client.post("/api/things", json={"thing_id": "t1"}, headers=auth)
    assert response.status_code == status
    assert response.json() == {
        "error": {
            "code": code.value,
            "message": "owner says no",
            # The owner names the message's field; the client sent it in the body.
            "details": [{"field": "body.thing_id", "message": "taken"}],
        }
    }


async def test_forbidden_answers_404_without_saying_the_thing_exists(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    error = RemoteError.of(ErrorCode.FORBIDDEN, "t1 belongs to bob")
    requester.answer = _Raise(error)
    response = await client.post("/api/things", json={"thing_id": "t1"}, headers=auth)
    assert response.status_code == 404
    assert response.json() == {
        "error": {"code": "not_found", "message": "not found", "details": []}
    }
    assert "bob" not in response.text


async def test_a_missing_field_is_422_naming_the_field(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post("/api/things", json={"size": "big"}, headers=auth)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid"
    fields = {d["field"]: d["message"] for d in error["details"]}
    assert fields["body.thing_id"] == "field required"
    assert fields["body.size"].startswith("input should be a valid integer")
    assert "body.thing_id: field required" in error["message"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"thing_id": ',  # a decode error
        b'{"thing_id": "\xff\xfe"}',  # not UTF-8: json.loads raises no decode error
    ],
)
async def test_malformed_json_is_422_naming_the_body(
    client: httpx.AsyncClient, auth: dict[str, str], body: bytes
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    response = await client.post("/api/things", content=body, headers=headers)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail["field"] == "body"
    assert detail["message"].startswith("body is not valid JSON")


async def test_every_lone_surrogate_in_a_body_is_named_at_once(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    # Only the first was named: a body with three took three requests to hear of them all.
    headers = {**auth, "Content-Type": "application/json"}
    body = b'{"thing_id":"\\udc00","s":{"v":"\\ud83d"},"m":["\\ud800"]}'
    response = await client.post("/api/things", content=body, headers=headers)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert [(d["field"], d["message"]) for d in error["details"]] == [
        ("body.thing_id", "contains a lone surrogate (U+DC00), which cannot be stored"),
        ("body.s.v", "contains a lone surrogate (U+D83D), which cannot be stored"),
        ("body.m[0]", "contains a lone surrogate (U+D800), which cannot be stored"),
    ]
    assert "body.s.v: contains a lone surrogate (U+D83D)" in error["message"]
    assert requester.sent == []


async def test_a_body_that_is_not_utf8_says_so_and_where(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    response = await client.post("/api/things", content=b'{"t": "\xff"}', headers=headers)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail == {
        "field": "body",
        "message": "body is not valid JSON: it is not UTF-8 (byte 7)",
    }


@pytest.mark.parametrize(
    ("encoding", "problem"),
    [
        ("utf-16", "it is not UTF-8 (byte 0)"),  # with its byte-order mark, as Python writes it
        ("utf-16-be", "Expecting value"),  # no mark: a NUL first, which is UTF-8 but no JSON
    ],
)
async def test_a_body_in_utf16_or_utf32_is_422_naming_the_body_and_nothing_is_sent(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any, encoding: str, problem: str
) -> None:
    # Given bytes, `json.loads` guessed the encoding, and such a body was taken and recorded
    # (found by a probe of the gateway), while the gateway's docs say it is a 422.
    headers = {**auth, "Content-Type": "application/json"}
    body = '{"thing_id": "t1"}'.encode(encoding)
    response = await client.post("/api/things", content=body, headers=headers)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail["field"] == "body"
    assert detail["message"].startswith(f"body is not valid JSON: {problem}")
    assert requester.sent == []


async def test_a_utf8_byte_order_mark_is_no_content(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    body = '{"thing_id": "t1"}'.encode("utf-8-sig")
    response = await client.post("/api/things", content=body, headers=headers)
    assert response.status_code == 200, response.text
    assert requester.sent[-1].thing_id == "t1"


async def test_a_body_with_a_key_given_twice_is_422_naming_the_key(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    # The JSON reader kept the last value: the first was dropped without a word.
    headers = {**auth, "Content-Type": "application/json"}
    body = b'{"thing_id": "a", "thing_id": "b"}'
    response = await client.post("/api/things", content=body, headers=headers)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail == {
        "field": "body",
        "message": "body is not valid JSON: key 'thing_id' is given twice in one object",
    }


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"n": ' + b"9" * 5000 + b"}", "a number has more than 4,300 digits"),
        (b"[" * 100_000 + b"]" * 100_000, "it nests deeper than the parser reads"),
    ],
)
def test_what_json_could_not_read_is_said_in_words(body: bytes, why: str) -> None:
    # FastAPI hands over what json.loads raised; "body is not valid JSON: ValueError" said
    # nothing of a number of 5,000 digits. (These bodies are over the test gateway's limit.)
    with pytest.raises((ValueError, RecursionError)) as raised:
        json.loads(body)
    assert http_errors._why(raised.value) == why


JSON_THING = b'{"thing_id": "t1"}'


@pytest.mark.parametrize(
    ("content_type", "sent"),
    [
        # curl -d
        ("application/x-www-form-urlencoded", "is 'application/x-www-form-urlencoded'"),
        ("text/plain; charset=utf-8", "is 'text/plain; charset=utf-8'"),
        (None, "was not sent"),
    ],
)
async def test_a_json_body_sent_as_another_type_is_415_naming_the_content_type(
    client: httpx.AsyncClient, auth: dict[str, str], content_type: str | None, sent: str
) -> None:
    headers = dict(auth) if content_type is None else {**auth, "Content-Type": content_type}
    response = await client.post("/api/things", content=JSON_THING, headers=headers)
    assert response.status_code == 415, response.text
    [detail] = response.json()["error"]["details"]
    expected = f"{sent}; send the body as JSON (application/json or application/*+json)"
    # The body was fine: the header is what to change.
    assert detail == {"field": "header.content-type", "message": expected}
    typed = {**auth, "Content-Type": "application/merge-patch+json"}
    assert (await client.post("/api/things", content=JSON_THING, headers=typed)).status_code == 200


async def test_no_body_at_all_is_422_naming_the_body(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post("/api/things", headers=auth)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    expected = "send it as JSON with Content-Type: application/json (none was sent)"
    assert detail == {"field": "body", "message": expected}


def test_a_body_that_fits_the_route_but_not_the_contract_is_422_naming_the_field(
    notifier: Notifier, start_thing: type[Command]
) -> None:
    with pytest.raises(ApiError) as caught:
        notifier.forwarder.build(start_thing, Identity("alice"), {"thing_id": "t1", "size": "many"})
    assert caught.value.status == 422
    [detail] = caught.value.body.error.details
    assert detail.field == "body.size"


def test_path_fields_are_named_as_path_parameters(
    notifier: Notifier, start_thing: type[Command]
) -> None:
    in_path = Origins({"thing_id": "path.thing_id"})
    with pytest.raises(ApiError) as caught:
        notifier.forwarder.build(start_thing, Identity("alice"), {}, thing_id=None, origins=in_path)
    assert caught.value.body.error.details[0].field == "path.thing_id"


async def test_an_unknown_route_answers_the_common_error_body(client: httpx.AsyncClient) -> None:
    response = await client.get("/nowhere")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


async def test_a_dag_start_carries_when_the_gateway_stops_waiting_for_it(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    # The workflow service writes the run only in time for its answer to come back by then: a
    # start held up before its handler ran was written after the gateway had answered 503.
    requester.answer = run_accepted
    before = datetime.now(UTC)
    response = await client.post("/workflows/note/run", json={}, headers=auth)
    after = datetime.now(UTC)

    assert response.status_code == 202
    sent = requester.sent[-1]
    assert isinstance(sent, StartDagRun) and sent.deadline is not None
    wait = timedelta(seconds=requester.timeouts[-1])
    assert before + wait <= sent.deadline <= after + wait


async def test_a_dag_delete_carries_its_deadline_and_a_read_has_none(
    client: httpx.AsyncClient, auth: dict[str, str], requester: Any
) -> None:
    requester.answer = lambda m: DagWorkflowDeleted(name="note")
    await client.delete("/workflows/note", headers=auth)
    deleted = requester.sent[-1]
    requester.answer = lambda m: DagWorkflowList(workflows=[])
    await client.get("/workflows", headers=auth)

    assert isinstance(deleted, DeleteDagWorkflow) and deleted.deadline is not None
    assert "deadline" not in requester.sent[-1].model_dump()


def test_a_body_cannot_set_the_deadline(notifier: Notifier) -> None:
    body = {"reason": "stop", "deadline": "2999-01-01T00:00:00Z"}
    built = notifier.forwarder.build(CancelDagRun, Identity(user_id="alice"), body, run_id="r1")
    assert built.deadline is None  # the gateway sets it as it sends, from its own timeout


async def test_a_gateway_not_connected_to_nats_answers_503_with_retry_after(
    auth: dict[str, str],
) -> None:
    # The real NATS link, never started: as during an outage, it holds no connection.
    notifier = build(NotifierSettings(jwt_secret=SECRET, nats_url="nats://127.0.0.1:1"))
    transport = httpx.ASGITransport(app=notifier.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        response = await http.get("/api/workflows/i1/progress", headers=auth)
    assert response.status_code == 503
    assert response.json()["error"] == {
        "code": "unavailable",
        "message": "the gateway is not connected to NATS",
        "details": [],
    }
    assert response.headers["retry-after"] == "2"


def test_a_503_that_names_its_own_retry_after_keeps_it() -> None:
    error = ApiError(503, "unavailable", "later", headers={"Retry-After": "30"})
    response = http_errors.error_response(error)
    assert response.headers["retry-after"] == "30"
