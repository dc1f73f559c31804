"""The console's files, `/api/console/config`, and `/api/dev/token` (dev sign-in only)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from importlib.resources import files
from pathlib import Path

import httpx
import pytest
import yaml

from baton_auth import USER_ID_PATTERN, USER_ID_RULE, verify_token
from baton_notifier.bootstrap import build
from baton_notifier.settings import NotifierSettings

from .conftest import SECRET, FakeConnection, FakeRequester

# Every module the package ships, found in the package, not in the gateway's list of files.
CONSOLE_FOLDER = Path(str(files("baton_notifier").joinpath("console")))
CONSOLE_MODULES = sorted(path.name for path in CONSOLE_FOLDER.glob("*.js"))


@pytest.fixture
async def dev_client(
    requester: FakeRequester, connection: FakeConnection
) -> AsyncIterator[httpx.AsyncClient]:
    """A gateway built as `baton up` runs it (`BATON_DEV_SIGN_IN=true`), asked on loopback."""
    settings = NotifierSettings(jwt_secret=SECRET, dev_sign_in=True)
    app = build(settings, requester=requester, connection=connection).app
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as http:
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
    for name in (*CONSOLE_MODULES, "index.html"):
        text = (await client.get(f"/console/{name}")).text
        assert "http://" not in text and "https://" not in text, name  # no CDN, no fonts


@pytest.mark.parametrize("name", CONSOLE_MODULES)
async def test_each_module_of_the_console_is_served_as_javascript(
    client: httpx.AsyncClient, name: str
) -> None:
    # A browser refuses to run a module served with any other type (or not at all).
    response = await client.get(f"/console/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.content == (CONSOLE_FOLDER / name).read_bytes()


async def test_every_module_a_module_imports_is_served(client: httpx.AsyncClient) -> None:
    imported = {
        target
        for name in CONSOLE_MODULES
        for target in re.findall(r'from "\./([^"]+)"', (CONSOLE_FOLDER / name).read_text())
    }
    assert imported == set(CONSOLE_MODULES) - {"console.js"}  # console.js starts the page
    for name in imported:
        assert (await client.get(f"/console/{name}")).status_code == 200, name


@pytest.mark.parametrize(
    "name",
    [
        "secrets.txt",
        "missing.js",
        "Console.js",
        "__init__.py",
        "..%2Fentrypoints%2Fconsole.py",
        "..%2F..%2Fbaton_notifier%2Fsettings.py",
    ],
)
async def test_an_unknown_console_file_is_a_404_with_the_error_body(
    client: httpx.AsyncClient, name: str
) -> None:
    response = await client.get(f"/console/{name}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


async def test_config_says_which_sign_in_the_console_offers(
    client: httpx.AsyncClient, dev_client: httpx.AsyncClient
) -> None:
    production = await client.get("/api/console/config")
    # The message limit too: the console says a message is too long before it is sent.
    assert (production.status_code, production.json()) == (
        200,
        {"dev_sign_in": False, "max_message_chars": 8000},
    )
    assert (await dev_client.get("/api/console/config")).json() == {
        "dev_sign_in": True,
        "max_message_chars": 8000,
    }


async def test_dev_token_does_not_exist_without_dev_sign_in(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/dev/token", json={"user_id": "alice"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "/api/dev/token" not in (await client.get("/openapi.json")).json()["paths"]


async def test_dev_token_reads_its_body_only_as_json(dev_client: httpx.AsyncClient) -> None:
    # A page may post text/plain to another origin without asking first; it is not read.
    headers = {"Content-Type": "text/plain"}
    response = await dev_client.post("/api/dev/token", content=b'{"user_id": "a"}', headers=headers)
    assert response.status_code == 415, response.text
    assert response.json()["error"]["details"][0]["field"] == "header.content-type"


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
    "control": ({"user_id": "a\x00b"}, "control or unprintable characters"),
    # Found by schemathesis: U+0017, a control the document's `pattern` did not yet rule out.
    "C0 control": ({"user_id": "\u00c5\u0017"}, "found '\\x17' at position 1"),
    # By Unicode category, which the pattern leaves to the field's description.
    "format": ({"user_id": "a\u200bb"}, "found '\\u200b' at position 1"),
    "unassigned": ({"user_id": "a\U000e0080"}, "found '\\u000e0080' at position 1"),
    # A look-alike of `ren\u00e9` spelled with a combining accent: a second user of that name.
    "decomposed": ({"user_id": "rene\u0301"}, "normal form c (nfc)"),
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


async def test_dev_token_documents_the_user_id_rule(dev_client: httpx.AsyncClient) -> None:
    # The document said "any string of 1 to 128": a client generated from it sent a control
    # character and was refused 422. Now it gives the pattern and the rule in words.
    spec = (await dev_client.get("/openapi.json")).json()
    field = spec["components"]["schemas"]["DevTokenBody"]["properties"]["user_id"]
    assert (field["minLength"], field["maxLength"]) == (1, 128)
    assert field["pattern"] == USER_ID_PATTERN
    assert field["description"] == USER_ID_RULE
    for sample in ("alice", "маша", "李-o_O", "a" * 128):
        assert re.search(field["pattern"], sample)
        assert (await dev_client.post("/api/dev/token", json={"user_id": sample})).is_success
    for name in ("empty", "blank", "space", "dot", "wildcard", "control", "C0 control", "format"):
        assert re.search(field["pattern"], str(BAD_USER_IDS[name][0]["user_id"])) is None, name
    # An unassigned code point is refused by its Unicode category, left to the description.
    assert re.search(field["pattern"], str(BAD_USER_IDS["unassigned"][0]["user_id"]))


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "[::1]", "127.0.0.2"]
)
async def test_dev_token_answers_a_loopback_host_and_the_gateway_own_origin(
    dev_client: httpx.AsyncClient, host: str
) -> None:
    headers = {"Host": host}
    assert (
        await dev_client.post("/api/dev/token", json={"user_id": "a"}, headers=headers)
    ).is_success
    headers["Origin"] = f"http://{host}"  # the console, opened at that address
    response = await dev_client.post("/api/dev/token", json={"user_id": "a"}, headers=headers)
    assert response.status_code == 200, response.text


REBOUND_HOSTS = [
    "evil.example:8080",  # DNS rebinding: the attacker's name, resolved to 127.0.0.1
    "evil.example",
    "127.0.0.1.evil.example",
    "localhost.evil.example:8080",
    "evil@localhost:8080",
    "localhost:99999",
    "192.168.1.5:8080",
    "0.0.0.0:8080",
]


@pytest.mark.parametrize("host", REBOUND_HOSTS)
async def test_dev_token_refuses_a_host_that_is_not_loopback_naming_it(
    dev_client: httpx.AsyncClient, host: str
) -> None:
    body = {"user_id": "alice"}
    response = await dev_client.post("/api/dev/token", json=body, headers={"Host": host})
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "forbidden"
    assert f"host {host!r} is not a loopback address" in error["message"]
    assert "token" not in response.json()
    # Refused before the body is read: a bad name is not even looked at.
    bad = await dev_client.post("/api/dev/token", json={"user_id": ""}, headers={"Host": host})
    assert bad.status_code == 403


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example:8080",  # a page elsewhere posting to the loopback gateway
        "http://localhost:8080",  # the same machine, but another origin than the one asked
        "http://127.0.0.1:3000",  # another local app's page
        "https://127.0.0.1:8080",
        "null",  # a sandboxed frame or a file:// page
        "",
    ],
)
async def test_dev_token_refuses_a_page_of_another_origin_naming_it(
    dev_client: httpx.AsyncClient, origin: str
) -> None:
    headers = {"Host": "127.0.0.1:8080", "Origin": origin}
    response = await dev_client.post("/api/dev/token", json={"user_id": "a"}, headers=headers)
    assert response.status_code == 403, response.text
    message = response.json()["error"]["message"]
    assert f"origin {origin!r} is not this gateway's own ('http://127.0.0.1:8080')" in message


async def test_the_rest_of_the_api_still_answers_any_host_with_a_token(
    dev_client: httpx.AsyncClient,
) -> None:
    # A bearer token in a header is what protects the API; a rebound page has none to send.
    token = (await dev_client.post("/api/dev/token", json={"user_id": "a"})).json()["token"]
    headers = {"Host": "gateway.internal", "Authorization": f"Bearer {token}"}
    assert (await dev_client.get("/api/me", headers=headers)).json()["user_id"] == "a"
    assert (await dev_client.get("/api/me", headers={"Host": "evil.example"})).status_code == 401
