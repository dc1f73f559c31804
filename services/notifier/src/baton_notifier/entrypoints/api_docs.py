"""`/docs` (Swagger UI) and `/redoc` (ReDoc), their scripts served by the gateway itself.

FastAPI's own pages load Swagger UI and ReDoc from cdn.jsdelivr.net (and ReDoc's fonts from
Google): a third party's script running on the gateway's origin, where the console keeps its
token in `sessionStorage` and, in dev mode, `POST /api/dev/token` takes a same-origin page's
word; and a blank page on a network that does not reach the CDN. The same files come from
the `fastapi-offline` package (Swagger UI 5, ReDoc 2), installed with the gateway.
"""

from __future__ import annotations

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


def install_api_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Add the two documentation pages of `app.openapi_url` and the files they load; after
    the API's routes (each route passed costs a request to a later one)."""
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_redirect_url = app.swagger_ui_oauth2_redirect_url or f"{docs_url}/oauth2-redirect"
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="api-docs-assets")

    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}{oauth2_redirect_url}",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            # No badge asking validator.swagger.io about the API (`null` turns it off).
            swagger_ui_parameters={"validatorUrl": None, **(app.swagger_ui_parameters or {})},
        )

    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        )

    for path, page in (
        (docs_url, swagger_ui),
        (oauth2_redirect_url, oauth2_redirect),
        (redoc_url, redoc),
    ):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)  # HEAD too
