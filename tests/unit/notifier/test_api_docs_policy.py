"""`/docs` and `/redoc` carry a Content-Security-Policy that allows what they load and nothing
else: a script injected into the page, or one from another origin, would be refused.

The pages are parsed and each script, style sheet, inline `<script>`/`<style>`, icon and the
API description they fetch is checked against the policy, as a browser checks it (CSP Level 3:
a source list per directive, `default-src` when a directive is absent, a hash naming an inline
element's text, `'unsafe-inline'` ignored beside a hash). A real browser loads both pages
under the policy in tests/e2e/console/test_api_docs_in_browser.py."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from baton_notifier.bootstrap import Notifier

PAGES = ["/docs", "/redoc", "/docs/oauth2-redirect"]
PAGE_ORIGIN = "http://gateway"


def policy_of(header: str) -> dict[str, list[str]]:
    """directive -> sources."""
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name.lower(): sources for name, *sources in directives}


FALLBACKS = {
    "script-src-elem": ("script-src-elem", "script-src", "default-src"),
    "style-src-elem": ("style-src-elem", "style-src", "default-src"),
    "img-src": ("img-src", "default-src"),
    "connect-src": ("connect-src", "default-src"),
}


def sources(policy: dict[str, list[str]], directive: str) -> list[str]:
    for name in FALLBACKS[directive]:
        if name in policy:
            return policy[name]
    return ["*"]  # no policy at all for it


def allows_url(policy: dict[str, list[str]], directive: str, url: str) -> bool:
    allowed = sources(policy, directive)
    absolute = urlsplit(urljoin(f"{PAGE_ORIGIN}/page", url))
    if "'self'" in allowed and f"{absolute.scheme}://{absolute.netloc}" == PAGE_ORIGIN:
        return True
    return f"{absolute.scheme}:" in allowed or "*" in allowed


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def allows_inline(policy: dict[str, list[str]], directive: str, text: str) -> bool:
    allowed = sources(policy, directive)
    hashes_or_nonces = [s for s in allowed if s.startswith(("'sha", "'nonce-"))]
    if sha256(text) in allowed:
        return True
    return "'unsafe-inline'" in allowed and not hashes_or_nonces


@dataclass
class Load:
    directive: str
    url: str | None = None  # None: inline
    text: str = ""


class Loads(HTMLParser):
    """What a page makes the browser load or run, with the directive that governs each."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.loads: list[Load] = []
        self._inline: Load | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        rel = attr.get("rel", "").split()
        if tag == "script" and "src" in attr:
            self.loads.append(Load("script-src-elem", attr["src"]))
        elif tag in ("script", "style"):
            self._inline = Load(f"{tag}-src-elem")
            self.loads.append(self._inline)
        elif tag == "link" and "stylesheet" in rel:
            self.loads.append(Load("style-src-elem", attr["href"]))
        elif tag == "link" and "icon" in rel:
            self.loads.append(Load("img-src", attr["href"]))
        elif tag == "img":
            self.loads.append(Load("img-src", attr["src"]))
        elif tag == "redoc":  # ReDoc fetches its `spec-url`
            self.loads.append(Load("connect-src", attr["spec-url"]))
        assert "style" not in attr, f"<{tag} style=...> needs 'unsafe-inline' for attributes"

    def handle_data(self, data: str) -> None:
        if self._inline is not None:
            self._inline.text += data
            # Swagger UI fetches the API description its inline script names.
            for url in re.findall(r"""\burl:\s*['"]([^'"]+)['"]""", data):
                self.loads.append(Load("connect-src", url))

    def handle_endtag(self, tag: str) -> None:
        self._inline = None


def loads_of(page: str) -> list[Load]:
    parser = Loads()
    parser.feed(page)
    parser.close()
    return parser.loads


def allows(policy: dict[str, list[str]], load: Load) -> bool:
    if load.url is None:
        return allows_inline(policy, load.directive, load.text)
    return allows_url(policy, load.directive, load.url)


@pytest.mark.parametrize("path", PAGES)
async def test_each_documentation_page_allows_what_it_loads(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    assert response.status_code == 200
    policy = policy_of(response.headers["content-security-policy"])
    loads = loads_of(response.text)
    assert loads, response.text
    refused = [load for load in loads if not allows(policy, load)]
    assert not refused, (response.headers["content-security-policy"], refused)
    if path != "/docs/oauth2-redirect":  # the pop-up Swagger UI opens runs only its script
        directives = {load.directive for load in loads}
        assert {"script-src-elem", "connect-src", "img-src"} <= directives, loads


@pytest.mark.parametrize("path", PAGES)
async def test_a_script_injected_into_a_page_or_from_elsewhere_is_refused(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    policy = policy_of(response.headers["content-security-policy"])
    assert policy["default-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    scripts = sources(policy, "script-src-elem")
    assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "data:", "blob:"} & set(scripts)
    for load in (
        Load("script-src-elem", text="alert(document.cookie)"),
        Load(
            "script-src-elem", "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"
        ),
        Load("script-src-elem", "data:text/javascript,alert(1)"),
        Load("style-src-elem", "https://fonts.googleapis.com/css?family=Roboto"),
        Load("img-src", "https://cdn.redoc.ly/redoc/logo-mini.svg"),  # ReDoc's credit's logo
        Load("connect-src", "https://evil.example/collect"),
    ):
        assert not allows(policy, load), load


async def test_only_redoc_takes_styles_it_writes_as_it_renders(client: httpx.AsyncClient) -> None:
    """ReDoc's styled-components write `<style>` elements at run time (it stays blank without
    them); Swagger UI's page allows only its own inline code, by hash."""
    redoc = policy_of((await client.get("/redoc")).headers["content-security-policy"])
    assert allows(redoc, Load("style-src-elem", text=".sc-abc { color: red }"))
    assert redoc["worker-src"] == ["blob:"]  # ReDoc's search
    swagger = policy_of((await client.get("/docs")).headers["content-security-policy"])
    assert not allows(swagger, Load("style-src-elem", text=".sc-abc { color: red }"))
    assert "worker-src" not in swagger


async def test_the_hashes_follow_the_page_it_serves(
    client: httpx.AsyncClient, notifier: Notifier
) -> None:
    """The inline script names the API description's URL, which moves with the app's root
    path (a gateway behind a proxy at /baton): the hash is of the page as served."""
    proxied = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=notifier.app, root_path="/baton"), base_url=PAGE_ORIGIN
    )
    async with proxied:
        response = await proxied.get("/docs")
    assert "/baton/openapi.json" in response.text
    policy = policy_of(response.headers["content-security-policy"])
    assert all(allows(policy, load) for load in loads_of(response.text))
    plain = policy_of((await client.get("/docs")).headers["content-security-policy"])
    assert plain["script-src"] != policy["script-src"]
