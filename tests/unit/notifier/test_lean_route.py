"""`LeanRoute`: the two routes of every turn take a well-formed request without FastAPI's
solving, answer every other request as FastAPI does, and refuse a shape they cannot read."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Annotated, Any

import fastapi.routing
import httpx
import pytest
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request, Response
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from baton_contracts.workflow_api import SendMessage, SignalWorkflow
from baton_notifier.bootstrap import Notifier, build
from baton_notifier.entrypoints.http import CurrentIdentity, current_identity, fastapi_telemetry
from baton_notifier.entrypoints.json_body import CheckedJsonRoute
from baton_notifier.entrypoints.lean_route import LeanRoute
from baton_notifier.settings import NotifierSettings

from .conftest import SECRET, FakeConnection, FakeRequester

SIGNAL, MESSAGES = "/api/workflows/i1/signal", "/api/workflows/i1/messages"
REPLY = b'{"outcome":"stayed"}'


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the requests FastAPI's own handler solved."""
    paths: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counted(*, request: Request, **kwargs: Any) -> Any:
        paths.append(request.url.path)
        return await solve(request=request, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    return paths


def _gateway(requester: FakeRequester) -> Notifier:
    settings = NotifierSettings(jwt_secret=SECRET, request_timeout_seconds=1.5)
    return build(settings, requester=requester, connection=FakeConnection())


def _answering() -> FakeRequester:
    """A requester answering every message with `REPLY`, as the owner sent it."""
    fake = FakeRequester()
    fake.raw = REPLY
    return fake


@pytest.fixture
def requester() -> FakeRequester:
    return _answering()


@pytest.fixture
async def lean(requester: FakeRequester) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(_gateway(requester).app) as http:
        yield http


@pytest.fixture
def fastapi_requester() -> FakeRequester:
    return _answering()


@pytest.fixture
def as_fastapi(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Routes built meanwhile take every request through FastAPI's handler, as before."""
    monkeypatch.setattr(LeanRoute, "taking_checked", CheckedJsonRoute.taking_checked)
    yield


@pytest.fixture
async def reference(
    as_fastapi: None, fastapi_requester: FakeRequester
) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(_gateway(fastapi_requester).app) as http:
        yield http


def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway")


async def test_a_well_formed_signal_is_taken_without_fastapis_solving(
    lean: httpx.AsyncClient, requester: FakeRequester, auth: dict[str, str], solved: list[str]
) -> None:
    answered = await lean.post(
        SIGNAL,
        json={"action": "complete_step", "data": {"k": 1}},
        headers={**auth, "Idempotency-Key": "key-1"},
    )
    assert answered.status_code == 200, answered.text
    assert answered.content == REPLY
    assert solved == []
    [sent] = requester.sent
    assert isinstance(sent, SignalWorkflow)
    assert (sent.instance_id, sent.user_id, sent.command_id) == ("i1", "alice", "key-1")
    assert (sent.signal.action, sent.signal.data) == ("complete_step", {"k": 1})


async def test_a_well_formed_message_is_taken_without_fastapis_solving(
    lean: httpx.AsyncClient, requester: FakeRequester, auth: dict[str, str], solved: list[str]
) -> None:
    answered = await lean.post(
        MESSAGES,
        content=b'{"text": "hello", "client_message_id": "m1"}',
        headers={**auth, "Content-Type": "application/json"},
    )
    assert answered.status_code == 200, answered.text
    assert solved == []
    [sent] = requester.sent
    assert isinstance(sent, SendMessage)
    assert (sent.text, sent.client_message_id, sent.user_id) == ("hello", "m1", "alice")


TOO_LONG_KEY = {"Idempotency-Key": "k" * 129}
CASES: list[tuple[str, str, dict[str, str], bytes | None]] = [
    # (label, path, extra headers, body); the body is JSON unless a header says otherwise
    ("well-formed signal", SIGNAL, {}, b'{"action": "stay"}'),
    ("well-formed message", MESSAGES, {}, b'{"text": "hi", "client_message_id": "c1"}'),
    ("JSON with a charset", SIGNAL, {"Content-Type": "application/json; charset=utf-8"},
     b'{"action": "stay"}'),
    ("a +json media type", SIGNAL, {"Content-Type": "application/vnd.baton+json"},
     b'{"action": "stay"}'),
    ("an instance id of the wrong form", "/api/workflows/bad%20id/signal", {},
     b'{"action": "stay"}'),
    ("an Idempotency-Key too long", SIGNAL, TOO_LONG_KEY, b'{"action": "stay"}'),
    ("an empty Idempotency-Key", SIGNAL, {"Idempotency-Key": ""}, b'{"action": "stay"}'),
    ("no body", SIGNAL, {}, None),
    ("an empty body", SIGNAL, {}, b""),
    ("JSON that does not parse", SIGNAL, {}, b'{"action": '),
    ("a key given twice", SIGNAL, {}, b'{"action": "stay", "action": "stay"}'),
    ("a lone surrogate", MESSAGES, {}, b'{"text": "\\ud800", "client_message_id": "c2"}'),
    ("an unknown action", SIGNAL, {}, b'{"action": "dance"}'),
    ("a field the body does not have", SIGNAL, {}, b'{"action": "stay", "extra": 1}'),
    ("a body that is a list", SIGNAL, {}, b'["stay"]'),
    ("a blank message", MESSAGES, {}, b'{"text": "  ", "client_message_id": "c3"}'),
    ("text/plain", SIGNAL, {"Content-Type": "text/plain"}, b'{"action": "stay"}'),
    ("no token", SIGNAL, {"Authorization": ""}, b'{"action": "stay"}'),
    ("a bad token and a bad body", SIGNAL, {"Authorization": "Bearer x.y.z"}, b'{"act'),
    ("a bad token and a wrong field", SIGNAL, {"Authorization": "Bearer x.y.z"}, b'{"a": 1}'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "headers", "body"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_every_request_is_answered_as_fastapi_answers_it(
    lean: httpx.AsyncClient,
    reference: httpx.AsyncClient,
    requester: FakeRequester,
    fastapi_requester: FakeRequester,
    auth: dict[str, str],
    path: str,
    headers: dict[str, str],
    body: bytes | None,
) -> None:
    sent_headers = {**auth, "Content-Type": "application/json", **headers}
    answers = [
        await http.post(path, content=body, headers=sent_headers) for http in (lean, reference)
    ]
    assert answers[0].status_code == answers[1].status_code
    assert answers[0].content == answers[1].content
    assert answers[0].headers.get("content-type") == answers[1].headers.get("content-type")
    # Each message's own id, time and deadline differ, and so does a command id the gateway
    # makes up.
    made_up = {"message_id", "sent_at", "command_id", "deadline"}
    sent = [m.model_dump(exclude=made_up) for m in requester.sent]
    assert sent == [m.model_dump(exclude=made_up) for m in fastapi_requester.sent]


async def test_with_dependency_overrides_fastapi_solves_the_request(
    requester: FakeRequester, solved: list[str]
) -> None:
    notifier = _gateway(requester)
    notifier.app.dependency_overrides[current_identity] = _carol
    async with _client(notifier.app) as http:
        answered = await http.post(SIGNAL, json={"action": "stay"})
    assert answered.status_code == 200, answered.text
    assert solved == [SIGNAL]
    assert requester.sent[0].user_id == "carol"


async def test_with_tracing_on_fastapi_handles_the_turn_routes(
    requester: FakeRequester, auth: dict[str, str], solved: list[str]
) -> None:
    """FastAPI's telemetry records its operations (dependencies, endpoint) as spans: while it
    is on, a turn's request takes FastAPI's handler, and its spans are as they were."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = NotifierSettings(jwt_secret=SECRET, request_timeout_seconds=1.5)
    notifier = build(
        settings, requester=requester, connection=FakeConnection(), tracer_provider=provider
    )
    async with _client(notifier.app) as http:
        answered = await http.post(SIGNAL, json={"action": "stay"}, headers=auth)
    assert answered.status_code == 200, answered.text
    assert solved == [SIGNAL]
    assert exporter.get_finished_spans()
    provider.shutdown()


async def _answer(request: Request) -> Response:
    return Response(b"{}", media_type="application/json")


async def _carol() -> Any:
    from baton_auth import Identity

    return Identity(user_id="carol", project_id="p1")


def _bare_app() -> FastAPI:
    """An app without FastAPI's telemetry: left to its defaults, it is on whenever some other
    test has set OpenTelemetry's global tracer provider, and then every request goes through
    FastAPI's handler (`test_with_tracing_on_fastapi_handles_the_turn_routes`)."""
    return FastAPI(telemetry=fastapi_telemetry(None))


def _app_with(route: Any, path: str = "/x") -> FastAPI:
    app = _bare_app()
    app.router.add_api_route(path, route, methods=["POST"], route_class_override=LeanRoute)
    return app


def test_a_route_with_a_query_parameter_cannot_be_lean() -> None:
    async def listed(page: Annotated[int, Query()] = 1) -> Response:
        return Response()

    with pytest.raises(TypeError, match=r"/x: LeanRoute does not read query params \(page\)"):
        _app_with(listed)


async def _scoped(request: Request, scope: Annotated[str, Query()]) -> str:
    return scope


async def _scoped_route(value: Annotated[str, Depends(_scoped)]) -> Response:
    return Response()


def test_a_dependency_that_takes_more_than_the_request_cannot_be_lean() -> None:
    with pytest.raises(TypeError, match="dependencies that take the request alone"):
        _app_with(_scoped_route)


async def _forbidden(request: Request) -> None:
    raise HTTPException(403, "the including router's own dependency")


async def test_a_dependency_of_an_including_router_is_solved_too(solved: list[str]) -> None:
    router = APIRouter(route_class=LeanRoute)
    router.add_api_route("/x", _answer, methods=["POST"])
    app = _bare_app()
    app.include_router(router, prefix="/in", dependencies=[Depends(_forbidden)])
    async with _client(app) as http:
        answered = await http.post("/in/x")
    assert answered.status_code == 403
    assert solved == []


def test_a_plain_def_endpoint_cannot_be_lean() -> None:
    def plain(identity: CurrentIdentity) -> Response:
        return Response()

    with pytest.raises(TypeError, match="a plain `def` endpoint"):
        _app_with(plain)


async def test_an_endpoint_that_answers_with_a_model_is_a_programming_error() -> None:
    async def modelled(request: Request) -> dict[str, str]:
        return {"not": "a response"}

    async with _client(_app_with(modelled)) as http:
        with pytest.raises(TypeError, match="/x: a LeanRoute's endpoint answers with a Response"):
            await http.post("/x")


DOC = Path(__file__).parents[3] / "docs" / "gateway.md"


async def test_the_documented_lean_route_runs_as_written(
    requester: FakeRequester, auth: dict[str, str], solved: list[str]
) -> None:
    text = DOC.read_text()
    section = text[text.index("### A route of every turn") :]
    found = re.search(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
    assert found is not None, "docs/gateway.md lost its LeanRoute example"
    names: dict[str, Any] = {}
    exec(compile(found.group(1), str(DOC), "exec"), names)
    notifier = _gateway(requester)
    notifier.app.include_router(names["router"])
    async with _client(notifier.app) as http:
        answered = await http.get("/api/whoami-fast", headers=auth)
    assert answered.status_code == 200, answered.text
    assert answered.json() == {"user_id": "alice"}
    assert solved == []
