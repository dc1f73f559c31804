"""A method a path does not take is a 405 whose `Allow` names every method the path takes;
HEAD is taken wherever GET is."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel

from baton_contracts import Command, ErrorCode, Query, RemoteError
from baton_notifier.bootstrap import Notifier
from baton_notifier.entrypoints.head_requests import GatewayRoute
from baton_notifier.entrypoints.http import api_router

from .conftest import FakeRequester


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        # Starlette named only the first route whose path matched.
        ("OPTIONS", "/workflows", "GET, HEAD, POST"),
        ("PUT", "/workflows/draft", "DELETE, GET, HEAD"),
        ("OPTIONS", "/api/workflows/i1/messages", "GET, HEAD, POST"),
        ("DELETE", "/health", "GET, HEAD"),
        ("POST", "/console/console.js", "GET, HEAD"),
    ],
)
async def test_a_method_the_path_does_not_take_is_405_allowing_every_one_it_does(
    client: httpx.AsyncClient, auth: dict[str, str], method: str, path: str, allowed: str
) -> None:
    response = await client.request(method, path, headers=auth)
    assert response.status_code == 405, response.text
    assert response.headers["Allow"] == allowed
    assert response.json()["error"]["code"] == "method_not_allowed"
    # It said "Method Not Allowed", naming neither the method nor what to send instead.
    assert response.json()["error"]["message"] == (
        f"{method} is not served at {path}; it takes {allowed}"
    )


async def test_head_where_there_is_no_get_is_405(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.head("/api/workflows/i1/signal", headers=auth)
    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"


def not_found(_: Query | Command) -> BaseModel:
    raise RemoteError.of(ErrorCode.NOT_FOUND, "no such thing")


# The gateway's GET routes that OpenAPI does not list, beside every one it does.
UNDOCUMENTED_GETS = ["/", "/console/console.js", "/ws", "/openapi.json", "/docs", "/redoc"]


def get_paths(app: FastAPI) -> list[str]:
    """Every GET path of the app, `{name}`-style parameters filled in."""
    spec = app.openapi()
    documented = [path for path, operations in spec["paths"].items() if "get" in operations]
    return [re.sub(r"\{[^}]+\}", "x1", path) for path in documented] + UNDOCUMENTED_GETS


async def test_every_get_route_answers_head_with_the_gets_status_and_headers(
    notifier: Notifier, client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    requester.answer = not_found
    paths = get_paths(notifier.app)
    assert {"/api/me", "/health", "/workflows", "/workflow-runs/x1"} <= set(paths)
    for path in paths:
        got = await client.get(path, headers=auth)
        head = await client.head(path, headers=auth)
        assert head.status_code == got.status_code != 405, path
        assert head.headers == got.headers, path
        assert head.content == b"", path


async def test_head_of_api_me_is_200_with_the_length_of_the_get(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    head = await client.head("/api/me", headers=auth)
    assert head.status_code == 200
    got = await client.get("/api/me", headers=auth)
    assert head.headers["content-length"] == str(len(got.content))
    assert (await client.head("/api/me")).status_code == 401  # as the GET without a token


async def test_a_get_route_added_later_answers_head_too(
    notifier: Notifier, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    # Routes added to the app itself, or through a router of the gateway's, after it was built.
    @notifier.app.get("/later")
    async def later() -> dict[str, str]:
        return {"later": "yes"}

    router = api_router()

    @router.get("/later")
    async def api_later() -> dict[str, str]:
        return {"later": "api"}

    notifier.app.include_router(router)
    assert (await client.head("/later")).status_code == 200
    assert (await client.head("/api/later", headers=auth)).status_code == 200


def test_openapi_lists_no_head_and_keeps_each_gets_operation_id(notifier: Notifier) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Duplicate Operation ID" for a GET's HEAD
        spec = notifier.app.openapi()
    operations = [
        (method, operation["operationId"])
        for path in spec["paths"].values()
        for method, operation in path.items()
    ]
    assert "head" not in {method for method, _ in operations}
    ids = [operation_id for _, operation_id in operations]
    assert len(ids) == len(set(ids))
    assert spec["paths"]["/api/me"]["get"]["operationId"] == "me_api_me_get"
    assert spec["paths"]["/health"]["get"]["operationId"] == "health_health_get"


OPERATION_IDS = """
import json, sys
from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings
from tests.unit.notifier.conftest import SECRET, FakeConnection, FakeRequester

assert list({"GET", "HEAD"})[0] == "HEAD", "this hash seed iterates GET first"
app = build(NotifierSettings(jwt_secret=SECRET), requester=FakeRequester(),
            connection=FakeConnection()).app
paths = app.openapi()["paths"]
json.dump({path: ops["get"]["operationId"] for path, ops in paths.items() if "get" in ops},
          sys.stdout)
"""


def test_operation_ids_do_not_depend_on_the_order_of_a_set() -> None:
    # FastAPI names an operation after the first of its route's methods in set order, which
    # the process's string hash seed decides: in this one HEAD comes first.
    env = {**os.environ, "PYTHONHASHSEED": "3"}
    ran = subprocess.run(
        [sys.executable, "-c", OPERATION_IDS],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[3],  # the repository, where `tests` imports from
    )
    ids = json.loads(ran.stdout)
    assert ids["/api/me"] == "me_api_me_get"
    assert ids["/workflows/{name}"] == "get_workflow_workflows__name__get"
    assert all(operation_id.endswith("_get") for operation_id in ids.values()), ids


def test_two_routes_of_one_operation_id_are_still_warned_of(notifier: Notifier) -> None:
    router = APIRouter(route_class=GatewayRoute)
    for path in ("/one", "/two"):
        router.add_api_route(path, lambda: None, methods=["GET"], operation_id="same")
    notifier.app.include_router(router)
    with pytest.warns(UserWarning, match="Duplicate Operation ID same"):
        notifier.app.openapi()


@pytest.mark.parametrize(
    ("method", "path", "message"),
    [
        # Redirected (307) to an absolute address with the scheme the gateway was reached
        # by: behind an HTTPS proxy, http://, where a client following it sent its token.
        (
            "POST",
            "/api/workflows/",
            "no route at /api/workflows/: send it to /api/workflows, without the trailing slash",
        ),
        (
            "GET",
            "/api/workflows/i1/messages/",
            "no route at /api/workflows/i1/messages/: send it to /api/workflows/i1/messages, "
            "without the trailing slash",
        ),
        ("GET", "/api/nothing-here", "no route at /api/nothing-here"),
    ],
)
async def test_a_path_no_route_serves_is_a_404_naming_it_never_a_redirect(
    client: httpx.AsyncClient, auth: dict[str, str], method: str, path: str, message: str
) -> None:
    response = await client.request(method, path, headers=auth, json={})
    assert response.status_code == 404, response.text
    assert "location" not in response.headers
    assert response.json() == {"error": {"code": "not_found", "message": message, "details": []}}
