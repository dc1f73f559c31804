"""The console's files, `/api/console/config`, and `/api/dev/token` (dev sign-in only)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import yaml

from baton_auth import verify_token
from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings

from .conftest import SECRET, FakeConnection, FakeRequester


@pytest.fixture
async def dev_client(
    requester: FakeRequester, connection: FakeConnection
) -> AsyncIterator[httpx.AsyncClient]:
    """A gateway built as `baton up` runs it: `BATON_DEV_SIGN_IN=true`."""
    settings = NotifierSettings(jwt_secret=SECRET, dev_sign_in=True)
    app = build(settings, requester=requester, connection=connection).app
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        yield http


def test_dev_sign_in_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
    monkeypatch.delenv("BATON_DEV_SIGN_IN", raising=False)
    assert NotifierSettings().dev_sign_in is False
    monkeypatch.setenv("BATON_DEV_SIGN_IN", "true")
    assert NotifierSettings().dev_sign_in is True


def test_production_compose_never_turns_dev_sign_in_on() -> None:
    compose = yaml.safe_load((Path(__file__).parents[3] / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        assert "BATON_DEV_SIGN_IN" not in (service.get("environment") or {}), name


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/", "text/html; charset=utf-8"),
        ("/console/console.js", "text/javascript; charset=utf-8"),
        ("/console/console.css", "text/css; charset=utf-8"),
    ],
)
async def test_the_console_files_are_served_without_a_token_and_revalidated(
    client: httpx.AsyncClient, path: str, content_type: str
) -> None:
    response = await client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == content_type
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert (await client.head(path)).status_code == 200  # curl -I works too


async def test_the_page_loads_only_files_of_the_gateway(client: httpx.AsyncClient) -> None:
    page = (await client.get("/")).text
    assert '<script type="module" src="/console/console.js">' in page
    assert 'href="/console/console.css"' in page
    for text in (page, (await client.get("/console/console.js")).text):
        assert "http://" not in text and "https://" not in text  # no CDN, no fonts


async def test_an_unknown_console_file_is_a_404_with_the_error_body(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/console/secrets.txt")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


async def test_config_says_which_sign_in_the_console_offers(
    client: httpx.AsyncClient, dev_client: httpx.AsyncClient
) -> None:
    production = await client.get("/api/console/config")
    assert (production.status_code, production.json()) == (200, {"dev_sign_in": False})
    assert (await dev_client.get("/api/console/config")).json() == {"dev_sign_in": True}


async def test_dev_token_does_not_exist_without_dev_sign_in(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/dev/token", json={"user_id": "alice"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "/api/dev/token" not in (await client.get("/openapi.json")).json()["paths"]


async def test_dev_token_mints_a_token_the_api_accepts(dev_client: httpx.AsyncClient) -> None:
    response = await dev_client.post("/api/dev/token", json={"user_id": "маша"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["user_id"] == "маша"
    assert verify_token(SECRET, body["token"]).user_id == "маша"
    me = await dev_client.get("/api/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.json()["user_id"] == "маша"


BAD_USER_IDS: dict[str, tuple[dict[str, object], str]] = {
    "missing": ({}, "field required"),
    "empty": ({"user_id": ""}, "at least 1 character"),
    "blank": ({"user_id": "   "}, "must not be blank"),
    "long": ({"user_id": "a" * 129}, "at most 128 characters"),
    "space": ({"user_id": "alice smith"}, "must not contain spaces"),
    "dot": ({"user_id": "alice.smith"}, "'.'"),
    "wildcard": ({"user_id": "a>b"}, "'>'"),
    "control": ({"user_id": "a\x00b"}, "control characters"),
    "number": ({"user_id": 7}, "valid string"),
    "extra": ({"user_id": "alice", "admin": True}, "extra inputs"),
}


@pytest.mark.parametrize(("body", "problem"), list(BAD_USER_IDS.values()), ids=list(BAD_USER_IDS))
async def test_dev_token_refuses_a_bad_user_id_naming_the_field(
    dev_client: httpx.AsyncClient, body: dict[str, object], problem: str
) -> None:
    response = await dev_client.post("/api/dev/token", json=body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid"
    field = "body.admin" if "admin" in body else "body.user_id"
    assert error["details"][0]["field"] == field
    assert problem in error["details"][0]["message"].lower()
