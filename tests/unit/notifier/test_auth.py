import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from fastapi.routing import APIRoute
from fastapi.security.base import SecurityBase
from starlette.routing import Route

from baton_auth import Identity, mint_token, verify_token
from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings

SECRET = "unit-test-secret-that-is-32-bytes!"  # the conftest's

OTHER_SECRET = "another-secret-also-32-bytes-long!"
DECOMPOSED = "rene\u0301"


def _signed(claims: dict[str, object]) -> str:
    return jwt.encode(claims, SECRET, algorithm="HS256")


def _mangled() -> str:
    header, _, signature = mint_token(SECRET, "alice").split(".")
    return f"{header}.%%.{signature}"  # a payload that is not base64url


def _expired() -> str:
    long_ago = datetime.now(UTC) - timedelta(days=1)
    return mint_token(SECRET, "alice", now=long_ago, ttl=timedelta(minutes=5))


@pytest.mark.parametrize(
    ("header", "said", "reason"),
    [
        (None, "missing or malformed", "missing"),
        ("Basic YWxpY2U6cHc=", "missing or malformed", "missing"),
        ("Bearer", "missing or malformed", "missing"),
        ("Bearer    ", "missing or malformed", "missing"),
        ("Bearer not-a-jwt", "token is not a JWT: it should be three parts", "malformed"),
        (f"Bearer {_mangled()}", "could not be read: its payload", "malformed"),
        (f"Bearer {mint_token(OTHER_SECRET, 'alice')}", "signature", "bad_signature"),
        (f"Bearer {_expired()}", "token has expired", "expired"),
        (f"Bearer {_signed({'sub': 'a', 'exp': 4102444800})}", "lacks the claim 'iss'",
         "missing_claim"),
        (f"Bearer {_signed({'sub': 'a', 'iss': 'baton', 'exp': 4102444800, 'aud': 'x'})}",
         "another audience", "wrong_audience"),
        # `e` + U+0301 looks like `\u00e9`: taken, it was a second user of a look-alike name.
        (f"Bearer {_signed({'sub': DECOMPOSED, 'iss': 'baton', 'exp': 4102444800})}",
         "(claim 'sub') must be in Unicode normal form C (NFC)", "invalid_claim"),
        (f"Bearer {_signed({'sub': 'a', 'iss': 'baton', 'exp': 4102444800, 'project_id': 'p.1'})}",
         "(claim 'project_id') is not a project id (a project id is 1 to 64", "invalid_claim"),
    ],
    ids=[
        "missing", "not-bearer", "empty-bearer", "blank-bearer", "garbage", "mangled",
        "forged", "expired", "no-issuer", "audience", "decomposed-user", "bad-project",
    ],
)  # fmt: skip
@pytest.mark.parametrize("path", ["/api/me", "/api/services"])
async def test_api_routes_refuse_a_request_without_a_valid_token(
    client: httpx.AsyncClient, header: str | None, said: str, reason: str, path: str
) -> None:
    headers = {"Authorization": header} if header else {}
    response = await client.get(path, headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    error = response.json()["error"]
    assert error["code"] == "unauthorized"
    assert said in error["message"]
    # Why, for a program: the message's words may change, this one does not.
    assert error["details"] == [{"field": "token", "message": reason}]
    assert "segments" not in error["message"] and "padding" not in error["message"]


async def test_two_authorization_headers_are_refused_not_the_first_taken(
    client: httpx.AsyncClient,
) -> None:
    # The first was taken: a proxy that adds its own token, or checks the last one, vouched
    # for another user than the one the gateway then acted for.
    headers = [
        ("Authorization", f"Bearer {mint_token(SECRET, 'alice')}"),
        ("Authorization", f"Bearer {mint_token(SECRET, 'bob')}"),
    ]
    response = await client.get("/api/me", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"] == {
        "code": "unauthorized",
        "message": "Authorization header sent 2 times; send one",
        "details": [{"field": "token", "message": "malformed"}],
    }


async def test_me_returns_the_identity_the_token_carries(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.get("/api/me", headers=auth)
    assert response.status_code == 200
    assert response.json() == {"user_id": "alice", "project_id": "p1"}


@pytest.mark.parametrize("template", ["bearer {}", "BEARER {}", "Bearer   {}  "])
async def test_the_scheme_is_case_insensitive_and_spaces_around_the_token_are_ignored(
    client: httpx.AsyncClient, template: str
) -> None:
    header = template.format(mint_token(SECRET, "alice"))
    response = await client.get("/api/me", headers={"Authorization": header})
    assert response.status_code == 200, response.text
    assert response.json()["user_id"] == "alice"


async def test_health_needs_no_token(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).status_code == 200


async def test_openapi_documents_the_bearer_scheme(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/openapi.json")).json()
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    # Every route behind the token says so, including those of the route modules.
    for path in ("/api/me", "/api/workflows/{instance_id}/signal", "/workflows"):
        for operation in schema["paths"][path].values():
            assert operation["security"] == [{"HTTPBearer": []}], path
    assert "security" not in schema["paths"]["/health"]["get"]
    # A 401 says where its reason is, for clients written from the document.
    unauthorized = schema["paths"]["/api/me"]["get"]["responses"]["401"]["description"]
    assert 'field: "token"' in unauthorized and "expired" in unauthorized
    assert "/api/me" in schema["paths"]
    assert (await client.get("/docs")).status_code == 200


def test_openapi_describes_each_route_by_the_token_it_takes() -> None:
    # Built with a NATS URL (never connected), so the live routes are there as in production.
    app = build(NotifierSettings(jwt_secret=SECRET, nats_url="nats://127.0.0.1:1")).app
    schema = app.openapi()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["HTTPBearer"]["description"] == "A JWT from `baton token --user <name>`."
    assert "?token=" in schemes["HTTPBearerOrTokenParameter"]["description"]
    assert schema["paths"]["/api/events"]["get"]["security"] == [{"HTTPBearerOrTokenParameter": []}]
    assert schema["paths"]["/api/me"]["get"]["security"] == [{"HTTPBearer": []}]


def test_a_verified_identity_says_until_when_its_token_is_accepted() -> None:
    # The live routes end a connection at `valid_until`: exactly when a reconnect with the
    # same token would be refused (its `exp`, plus the leeway verify_token allows).
    issued = datetime.now(UTC).replace(microsecond=0)
    identity = verify_token(SECRET, mint_token(SECRET, "alice", now=issued, ttl=timedelta(hours=1)))
    assert identity.valid_until == issued + timedelta(hours=1, seconds=5)
    assert identity == Identity("alice")  # who, not until when


PUBLIC = {"/health", "/", "/console/{name}", "/api/console/config", "/api/dev/token", "/ws"} | {
    "/docs",
    "/docs/oauth2-redirect",
    "/redoc",
}
"""Routes that answer without a token (`/openapi.json` is a plain Starlette route, and so are
the files of `/docs/assets`). `GET /ws` only says that `/ws` is a WebSocket (426); the
WebSocket checks its own token."""


def test_every_route_but_the_public_ones_needs_a_token() -> None:
    # No router adds the token dependency for its routes (that solved it twice per request):
    # each route takes it itself, and one that forgets is caught here.
    for dev in (False, True):
        settings = NotifierSettings(
            jwt_secret=SECRET, nats_url="nats://127.0.0.1:1", dev_sign_in=dev
        )
        routes = list(_api_routes(build(settings).app.router.routes))
        assert len(routes) > 30
        for route in routes:
            schemes = [c for c in _calls(route.dependant) if isinstance(c, SecurityBase)]
            if route.path in PUBLIC:
                assert schemes == [], route.path
            else:
                assert len(schemes) == 1, (route.path, route.methods)


def _api_routes(routes: Iterable[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):  # an included router (FastAPI 0.165)
            yield from _api_routes(route.original_router.routes)
        elif hasattr(route, "routes") and not isinstance(route, Route):
            yield from _api_routes(route.routes)


def _calls(dependant: Any) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


async def test_routes_refuse_requests_without_a_token_on_every_module(
    client: httpx.AsyncClient,
) -> None:
    for method, path in (
        ("GET", "/api/services"),
        ("POST", "/api/workflows/i1/signal"),
        ("POST", "/api/workflows/i1/messages"),
        ("GET", "/api/inbox"),
        ("GET", "/workflows"),
        ("POST", "/workflows/x/run"),
    ):
        response = await client.request(method, path, json={})
        assert response.status_code == 401, (method, path, response.text)


DOC = Path(__file__).parents[3] / "docs" / "gateway.md"


async def test_the_documented_refusal_is_what_the_gateway_answers(
    client: httpx.AsyncClient,
) -> None:
    text = DOC.read_text()
    section = text[text.index("## Authentication") : text.index("## Routes")]
    found = re.search(
        r"^```sh\ncurl -s -H 'Authorization: (.*?)' http://127\.0\.0\.1:8080(\S+)\n```\n\n"
        r"^```\n(.*?)\n```",
        section,
        flags=re.S | re.M,
    )
    assert found is not None, "docs/gateway.md lost its refused-token example"
    header, path, printed = found.groups()
    response = await client.get(path, headers={"Authorization": header})
    assert (response.status_code, response.text) == (401, printed)
