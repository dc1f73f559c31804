"""`error.details[].field` names a field where the request held it, whichever side refused it:
`body[.<path>]`, `query.<name>`, `path.<name>` or `header.<name>`.

An owner sees only the contract message and names its fields (`text`, `signal.data.x`,
`request_id`); the gateway, which alone knows where each came from, renames them.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from baton_contracts import Command, ErrorCode, ErrorDetail, Query, RemoteError
from baton_contracts.agent_api import ListInboxItems
from baton_notifier.service.forwarding import GATEWAY_FIELDS

from .conftest import FakeRequester

LOCATIONS = ("body", "query", "path", "header")


def refuse(*fields: str | None, code: ErrorCode = ErrorCode.INVALID) -> Any:
    """An owner refusing every request, naming `fields` as it would."""

    def answer(_: Query | Command) -> BaseModel:
        details = [ErrorDetail(field=f, message="refused") for f in fields]
        raise RemoteError.of(code, "refused", details)

    return answer


def fields_of(response: httpx.Response) -> list[str | None]:
    assert response.status_code >= 400, response.text
    return [d["field"] for d in response.json()["error"]["details"]]


async def test_a_body_field_has_one_name_whichever_side_refuses_it(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # The gateway refused `body.text`; the workflow service's `text` was the same field.
    url = "/api/workflows/i1/messages"
    assert fields_of(await client.post(url, json={"text": 5}, headers=auth)) == ["body.text"]
    requester.answer = refuse("text")
    assert fields_of(await client.post(url, json={"text": " "}, headers=auth)) == ["body.text"]


async def test_a_path_parameter_is_named_path(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    refused = await client.get("/api/workflows/a.b/progress", headers=auth)
    assert fields_of(refused) == ["path.instance_id"]
    requester.answer = refuse("instance_id", code=ErrorCode.NOT_FOUND)
    missing = await client.get("/api/workflows/i1/progress", headers=auth)
    assert fields_of(missing) == ["path.instance_id"]
    requester.answer = refuse("from_version", "to_version", code=ErrorCode.NOT_FOUND)
    diff = await client.get("/workflow-versions/w@1/diff/w@2", headers=auth)
    assert fields_of(diff) == ["path.from_id", "path.to_id"]


async def test_a_query_parameter_is_named_query_as_spelled_in_the_url(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    assert fields_of(await client.get("/api/memory?limit=0", headers=auth)) == ["query.limit"]
    for blank in ("%20", "a%20b", "*", ""):  # a category is a name (found by a review)
        refused = await client.get(f"/api/memory?category={blank}", headers=auth)
        assert refused.status_code == 422 and fields_of(refused) == ["query.category"], blank
    requester.answer = refuse("query", "category")  # `q` in the URL
    refused = await client.get("/api/memory?q=x&category=c", headers=auth)
    assert fields_of(refused) == ["query.q", "query.category"]


async def test_a_header_is_named_header_in_lower_case(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    empty = {**auth, "Idempotency-Key": ""}
    url = "/workflows/w/run"
    assert fields_of(await client.post(url, json={}, headers=empty)) == ["header.idempotency-key"]
    requester.answer = refuse("request_id", code=ErrorCode.CONFLICT)
    keyed = {**auth, "Idempotency-Key": "k1"}
    assert fields_of(await client.post(url, json={}, headers=keyed)) == ["header.idempotency-key"]


async def test_an_id_is_named_where_it_was_given(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = refuse("command_id", code=ErrorCode.CONFLICT)
    url = "/api/workflows/i1/signal"
    keyed = {**auth, "Idempotency-Key": "k1"}
    in_header = await client.post(url, json={"action": "stay"}, headers=keyed)
    assert fields_of(in_header) == ["header.idempotency-key"]
    in_body = await client.post(url, json={"action": "stay", "command_id": "c1"}, headers=keyed)
    assert fields_of(in_body) == ["body.command_id"]
    requester.answer = refuse("client_message_id", code=ErrorCode.CONFLICT)
    message = await client.post("/api/workflows/i1/messages", json={"text": "hi"}, headers=keyed)
    assert fields_of(message) == ["header.idempotency-key"]


async def test_a_signals_fields_are_the_bodys(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # The body becomes the message's `signal`: its fields are the body's.
    requester.answer = refuse("signal.data.notes[1]", "signal.target_step", "signal")
    refused = await client.post("/api/workflows/i1/signal", json={"action": "stay"}, headers=auth)
    assert fields_of(refused) == ["body.data.notes[1]", "body.target_step", "body"]


async def test_a_documents_problems_are_named_by_their_path_in_the_body(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = refuse("steps[0].prompt", "name", "user_id", None)
    for url in ("/workflows", "/workflows/w/validate"):
        refused = await client.post(url, json={"name": "w"}, headers=auth)
        named = ["body.steps[0].prompt", "body.name", "body.user_id", "body"]
        assert fields_of(refused) == named, url
    # Validating the stored version sends no document: only the name in the URL can be wrong.
    requester.answer = refuse("name", code=ErrorCode.NOT_FOUND)
    assert fields_of(await client.post("/workflows/w/validate", headers=auth)) == ["path.name"]


async def test_an_empty_key_is_named_in_brackets_whichever_side_refuses_it(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # Both named `body.variables.`, a path that stops at its dot.
    requester.answer = refuse('variables[""]')
    refused = await client.post("/workflows", json={"name": "w"}, headers=auth)
    assert fields_of(refused) == ['body.variables[""]']
    run = await client.post("/workflows/w/run", json={"variables": {"": 5}}, headers=auth)
    assert fields_of(run) == ['body.variables[""]']


async def test_the_callers_identity_is_named_by_its_token(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = refuse("user_id")
    assert fields_of(await client.get("/api/inbox", headers=auth)) == ["header.authorization"]


ROUTES: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/api/workflows", {"json": {"workflow_id": "onboarding"}}),
    ("GET", "/api/workflows/active", {}),
    ("GET", "/api/workflows/i1", {}),
    ("GET", "/api/workflows/i1/progress", {}),
    ("GET", "/api/workflows/i1/messages", {}),
    ("GET", "/api/workflows/i1/events", {}),
    ("GET", "/api/workflows/i1/explain", {}),
    ("POST", "/api/workflows/i1/signal", {"json": {"action": "stay", "command_id": "c"}}),
    ("POST", "/api/workflows/i1/messages", {"json": {"text": "hi", "client_message_id": "m"}}),
    ("GET", "/api/inbox", {}),
    ("GET", "/api/memory?category=c&q=x", {}),
    ("GET", "/workflows", {}),
    ("POST", "/workflows", {"json": {"name": "w"}}),
    ("GET", "/workflows/w", {}),
    ("DELETE", "/workflows/w", {}),
    ("POST", "/workflows/w/validate", {"json": {"name": "w"}}),
    ("POST", "/workflows/w/run", {"json": {}, "headers": {"Idempotency-Key": "k"}}),
    ("GET", "/workflows/w/runs", {}),
    ("GET", "/workflows/w/versions", {}),
    ("POST", "/workflows/w/rollback", {"json": {"version_id": "1"}}),
    ("GET", "/workflow-runs?workflow=w", {}),
    ("GET", "/workflow-runs/r1", {}),
    ("POST", "/workflow-runs/r1/cancel", {"json": {"reason": "why"}}),
    ("GET", "/workflow-versions/w@1/diff/w@2", {}),
    ("POST", "/api/things", {"json": {"thing_id": "t1"}}),  # the route conftest adds
]
"""One request on every route that forwards to an owner."""

NOT_FORWARDED = {
    "/health",
    "/api/me",
    "/api/services",
    "/api/console/config",
    "/api/dev/token",
    "/api/events",
}


def test_every_forwarding_route_is_tried(client: httpx.AsyncClient) -> None:
    spec = client._transport.app.openapi()  # type: ignore[attr-defined]
    documented = {
        (method.upper(), path)
        for path, operations in spec["paths"].items()
        if path not in NOT_FORWARDED
        for method in operations
    }
    tried = {
        (method, _template(url.split("?")[0], method, documented)) for method, url, _ in ROUTES
    }
    assert documented - tried == set()


def _template(path: str, method: str, documented: set[tuple[str, str]]) -> str | None:
    """The route template `path` is matched by: the one with the fewest parameters."""
    fits = [t for m, t in documented if m == method and _fits(t, path)]
    return min(fits, key=lambda t: t.count("{"), default=None)


def _fits(template: str, path: str) -> bool:
    parts, wanted = template.split("/"), path.split("/")
    return len(parts) == len(wanted) and all(
        p == w or p.startswith("{") for p, w in zip(parts, wanted, strict=True)
    )


@pytest.mark.parametrize(
    ("method", "url", "options"), ROUTES, ids=[f"{m} {u}" for m, u, _ in ROUTES]
)
async def test_every_field_a_route_sends_is_named_where_the_request_held_it(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    method: str,
    url: str,
    options: dict[str, Any],
) -> None:
    def refuse_every_field(message: Query | Command) -> BaseModel:
        # The gateway's own fields (a write's deadline) were in no request: none to name.
        sent = sorted(message.model_fields_set - {"type", *GATEWAY_FIELDS})
        raise RemoteError.of(
            ErrorCode.INVALID, "refused", [ErrorDetail(field=f, message="bad") for f in sent]
        )

    requester.answer = refuse_every_field
    headers = {**auth, **options.get("headers", {})}
    response = await client.request(method, url, headers=headers, json=options.get("json"))
    named = fields_of(response)
    assert named, "the route sent no field at all"
    assert [f for f in named if f is None or f.split(".")[0].split("[")[0] not in LOCATIONS] == []


async def test_a_message_opening_with_its_field_names_it_as_the_request_did(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # The message said "signal.data.started_at: kept by ..." while its detail said
    # `body.data.started_at`: the owner's name for the field, which the client never sent.
    def answer(_: Query | Command) -> BaseModel:
        detail = ErrorDetail(field="signal.data.started_at", message="kept")
        raise RemoteError.of(ErrorCode.INVALID, "signal.data.started_at: kept", [detail])

    requester.answer = answer
    body = {"action": "stay", "data": {"started_at": 1}}
    refused = await client.post("/api/workflows/i1/signal", json=body, headers=auth)
    error = refused.json()["error"]
    assert error["message"] == "body.data.started_at: kept"
    assert [d["field"] for d in error["details"]] == ["body.data.started_at"]
    requester.answer = refuse("signal.data")  # a message not opening with it stays as it is
    refused = await client.post("/api/workflows/i1/signal", json=body, headers=auth)
    assert refused.json()["error"]["message"] == "refused"


async def test_fields_a_message_lists_are_named_as_the_request_did(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # "the rollback has 1 problem(s): version_id: names workflow 'other', ..." quoted the
    # workflow service's field name in the middle of the message.
    def answer(_: Query | Command) -> BaseModel:
        details = [
            ErrorDetail(field="version_id", message="names workflow 'other'"),
            ErrorDetail(field="name", message="no such workflow"),
        ]
        message = "2 problem(s): version_id: names workflow 'other'; name: no such workflow"
        raise RemoteError.of(ErrorCode.INVALID, message, details)

    requester.answer = answer
    url = "/workflows/w/rollback"
    refused = await client.post(url, json={"version_id": "w@1"}, headers=auth)
    assert refused.json()["error"]["message"] == (
        "2 problem(s): body.version_id: names workflow 'other'; path.name: no such workflow"
    )


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/workflow-runs/r1/cancel", {"reason": "   "}, "body.reason"),
        ("/workflow-runs/r1/cancel", {"reason": "\u200b\n"}, "body.reason"),
        ("/api/workflows/i1/signal", {"action": "stay", "command_id": "   "}, "body.command_id"),
        (
            "/api/workflows/i1/messages",
            {"text": "hi", "client_message_id": "\t"},
            "body.client_message_id",
        ),
        (  # BEL and ESC show nothing either
            "/api/workflows/i1/messages",
            {"text": "hi", "client_message_id": "\u0007\u001b"},
            "body.client_message_id",
        ),
    ],
)
async def test_a_blank_id_or_reason_is_refused_by_its_name_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    body: dict[str, Any],
    field: str,
) -> None:
    # "   " was taken as it came: a run's error became "run cancelled:    ", a signal was
    # recorded under the id "   " (found by a probe of the gateway). Empty was refused already.
    refused = await client.post(url, json=body, headers=auth)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["details"] == [{"field": field, "message": "must not be blank"}]
    assert requester.sent == []


@pytest.mark.parametrize("q", ["%20", "%E2%80%8B", "%20%07"])
async def test_a_blank_memory_query_is_refused_naming_q_and_nothing_is_sent(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester, q: str
) -> None:
    # "q= " was taken and answered the facts nearest to a space, in no useful order, while
    # "q=" was refused (found by a probe of /api/memory).
    refused = await client.get(f"/api/memory?q={q}", headers=auth)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["details"] == [
        {"field": "query.q", "message": "must not be blank"}
    ]
    assert requester.sent == []


WHOLE_NUMBER_PARAMETERS = [
    ("/api/inbox", "limit"),
    ("/api/memory", "limit"),
    ("/api/workflows/i1/messages", "limit"),
    ("/api/workflows/i1/messages", "after_version"),
    ("/api/workflows/i1/events", "limit"),
    ("/api/workflows/i1/events", "after_version"),
    ("/workflows/w1/runs", "limit"),
    ("/workflow-runs", "limit"),
    ("/workflow-runs/r1", "limit"),
]


@pytest.mark.parametrize(("url", "name"), WHOLE_NUMBER_PARAMETERS)
@pytest.mark.parametrize("written", ["1_0", "+1", "%201", "1.0", "0x10"])
async def test_a_whole_number_not_written_in_digits_is_refused_naming_it_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    name: str,
    written: str,
) -> None:
    # Python's int() syntax was read: `limit=1_0` asked for 10 and `limit=+1` for 1, so a
    # pasted or mistyped number reached the owner as another one.
    refused = await client.get(f"{url}?{name}={written}", headers=auth)
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == f"query.{name}"
    assert detail["message"].startswith("must be a whole number written in digits 0-9, got ")
    assert requester.sent == []


@pytest.mark.parametrize(("url", "name"), WHOLE_NUMBER_PARAMETERS)
async def test_a_whole_number_in_digits_is_taken_and_a_negative_one_told_its_bound(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester, url: str, name: str
) -> None:
    requester.answer = refuse(None, code=ErrorCode.NOT_FOUND)  # what comes back is not the point
    await client.get(f"{url}?{name}=7", headers=auth)
    [sent] = requester.sent
    assert getattr(sent, name) == 7
    refused = await client.get(f"{url}?{name}=-1", headers=auth)
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == f"query.{name}"
    assert detail["message"].startswith("input should be greater than or equal to"), detail


REPEATABLE_BY_MISTAKE = [
    ("/api/inbox", "limit", "abc", "2"),
    ("/api/memory", "limit", "abc", "2"),
    ("/api/memory", "category", "bad/x", "priorities"),
    ("/api/memory", "q", "%20", "health"),
    ("/api/workflows/active", "limit", "abc", "2"),
    ("/api/workflows/active", "after", "a/b", "i1"),
    ("/api/workflows/i1/messages", "limit", "abc", "2"),
    ("/api/workflows/i1/messages", "after_version", "abc", "2"),
    ("/api/workflows/i1/events", "limit", "abc", "2"),
    ("/api/workflows/i1/events", "after_version", "abc", "2"),
    ("/workflow-runs", "limit", "abc", "2"),
]


@pytest.mark.parametrize(("url", "name", "bad", "good"), REPEATABLE_BY_MISTAKE)
@pytest.mark.parametrize("bad_first", [True, False])
async def test_a_query_parameter_given_twice_is_refused_naming_it_and_nothing_is_sent(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    url: str,
    name: str,
    bad: str,
    good: str,
    bad_first: bool,
) -> None:
    # The last one was taken, silently: `limit=abc&limit=2` asked for 2, and a refused value
    # sent first was never told. Which one the client meant is not the gateway's to guess.
    first, second = (bad, good) if bad_first else (good, bad)
    refused = await client.get(f"{url}?{name}={first}&{name}={second}", headers=auth)
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail == {"field": f"query.{name}", "message": "given 2 times; send it once"}
    assert refused.json()["error"]["message"] == (
        f"request is invalid: query.{name}: given 2 times; send it once"
    )
    assert requester.sent == []


async def test_a_query_parameter_the_route_does_not_take_may_come_twice(
    client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = refuse(None, code=ErrorCode.NOT_FOUND)  # what comes back is not the point
    await client.get("/api/inbox?x=1&x=2&limit=3", headers=auth)
    [sent] = requester.sent
    assert isinstance(sent, ListInboxItems)
    assert sent.limit == 3
