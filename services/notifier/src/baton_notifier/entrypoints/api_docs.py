"""`/docs` (Swagger UI) and `/redoc` (ReDoc), their scripts served by the gateway itself.

FastAPI's own pages load Swagger UI and ReDoc from cdn.jsdelivr.net (and ReDoc's fonts from
Google): a third party's script running on the gateway's origin, where the console keeps its
token in `sessionStorage` and, in dev mode, `POST /api/dev/token` takes a same-origin page's
word; and a blank page on a network that does not reach the CDN. The same files come from
the `fastapi-offline` package (Swagger UI 5, ReDoc 2), installed with the gateway.

Each page says what the browser may load for it (`docs_policy`), as the console does: a
script injected into a page, or from elsewhere, is refused.
"""

from __future__ import annotations

import base64
import hashlib
from html.parser import HTMLParser
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs/assets"
"""Where Swagger UI's and ReDoc's files are served: `swagger-ui-bundle.js`, `swagger-ui.css`,
`redoc.standalone.js`, `favicon.png`."""

ASSETS = Path(fastapi_offline.__file__).parent / "static"

POLICY = (
    "default-src 'none'; script-src {scripts}; style-src {styles}; img-src 'self' data:; "
    "connect-src 'self'; {workers}base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The pages' Content-Security-Policy (`docs_policy`): their files, and the API they describe,
from the gateway itself; the page's inline `<script>` and `<style>` by their hashes.

`'self'`, not the assets' folder: a source naming a path needs the host the browser used,
which a gateway behind a proxy that sends its own `Host` does not know. `data:` images are in
both style sheets (icons, backgrounds). `form-action 'none'`: neither page submits a form
(Swagger UI's "Try it out" sends by `fetch`)."""


class _InlineCode(HTMLParser):
    """The text of each inline `<script>` (one without `src`) and `<style>` of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and not any(name == "src" for name, _ in attrs):
            self.scripts.append("")
            self._open = self.scripts
        elif tag == "style":
            self.styles.append("")
            self._open = self.styles

    def handle_data(self, data: str) -> None:
        if self._open is not None:  # a script's text may come in several pieces
            self._open[-1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._open = None


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def docs_policy(page: str, *, styles_made_at_run_time: bool = False) -> str:
    """`POLICY` for `page`: its inline scripts allowed by their hashes, as a browser hashes
    them (the element's text, UTF-8), and so its inline styles.

    `styles_made_at_run_time`: ReDoc's, whose styled-components write `<style>` elements as it
    renders (no hash can name them: `'unsafe-inline'` for styles, never for scripts) and which
    searches in a `blob:` worker."""
    code = _InlineCode()
    code.feed(page)
    code.close()
    scripts = ["'self'", *map(_hash, code.scripts)]
    # A hash beside 'unsafe-inline' turns it off, so the page's own style is not hashed then.
    styles = ["'self'", "'unsafe-inline'"] if styles_made_at_run_time else ["'self'"]
    if not styles_made_at_run_time:
        styles += map(_hash, code.styles)
    return POLICY.format(
        scripts=" ".join(scripts),
        styles=" ".join(styles),
        workers="worker-src blob:; " if styles_made_at_run_time else "",
    )


def _with_policy(response: HTMLResponse, *, styles_made_at_run_time: bool = False) -> HTMLResponse:
    page = bytes(response.body).decode()
    policy = docs_policy(page, styles_made_at_run_time=styles_made_at_run_time)
    response.headers["Content-Security-Policy"] = policy
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def install_api_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Add the two documentation pages of `app.openapi_url` and the files they load; after
    the API's routes (each route passed costs a request to a later one)."""
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_redirect_url = app.swagger_ui_oauth2_redirect_url or f"{docs_url}/oauth2-redirect"
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="api-docs-assets")

    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _with_policy(
            get_swagger_ui_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{app.title} - Swagger UI",
                oauth2_redirect_url=f"{root}{oauth2_redirect_url}",
                swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
                swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
                # No badge asking validator.swagger.io about the API (`null` turns it off).
                swagger_ui_parameters={"validatorUrl": None, **(app.swagger_ui_parameters or {})},
            )
        )

    async def oauth2_redirect() -> HTMLResponse:
        return _with_policy(get_swagger_ui_oauth2_redirect_html())

    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _with_policy(
            get_redoc_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
                redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
                with_google_fonts=False,
            ),
            styles_made_at_run_time=True,
        )

    for path, page in (
        (docs_url, swagger_ui),
        (oauth2_redirect_url, oauth2_redirect),
        (redoc_url, redoc),
    ):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)  # HEAD too
