"""The web console at `/`: its static files, the mode it asks for, and dev sign-in.

The files are package data (`baton_notifier/console/`), read once when the app is built and
served from memory with explicit content types. Every answer says `Cache-Control: no-cache`,
so a browser revalidates and never runs a console older than the gateway it talks to.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Annotated

from fastapi import APIRouter, Body, Depends, FastAPI, Request
from fastapi.responses import Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from baton_auth import (
    MAX_USER_ID_CHARS,
    USER_ID_PATTERN,
    USER_ID_RULE,
    mint_token,
    user_id_problem,
)
from baton_contracts import ErrorCode
from baton_contracts.workflow_api import MAX_MESSAGE_CHARS
from baton_notifier.domain.errors import ApiError, HttpErrorResponse
from baton_notifier.domain.loopback import host_problem, origin_problem
from baton_notifier.entrypoints.documented import documented
from baton_notifier.entrypoints.http import deps_of
from baton_notifier.entrypoints.json_body import CheckedJsonRoute

CONSOLE_PACKAGE = "baton_notifier"
CONSOLE_FOLDER = "console"
JAVASCRIPT = "text/javascript; charset=utf-8"
# The ES modules: `console.js` starts the page and imports the others by relative URL
# (`./api.js` is `/console/api.js`). A browser refuses a module served as anything but
# JavaScript, and a file not listed here is a 404, so a new module is added here too.
MODULES = (
    "console.js",
    "alert.js",
    "answers.js",
    "api.js",
    "conversation.js",
    "criteria-words.js",
    "dom.js",
    "event-log.js",
    "explanation.js",
    "inbox.js",
    "list-step.js",
    "live.js",
    "onboardings.js",
    "progress.js",
    "reload.js",
    "sending.js",
    "session.js",
    "state.js",
    "widget.js",
    "wording.js",
    "workspace.js",
)
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "console.css": "text/css; charset=utf-8",
    **dict.fromkeys(MODULES, JAVASCRIPT),
}

# Nothing outside the gateway: no CDN, no fonts, no frames; the live socket is same-origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "no-referrer",
}


def _fit_user_id(value: str) -> str:
    # The same rule `baton token` and every minted token follow (a user id ends up in subjects).
    if (problem := user_id_problem(value)) is not None:
        raise PydanticCustomError("user_id", problem)
    return value


# The pattern is only stated: it says the rule for Latin-1, and past it leaves to the words
# what is by Unicode category. `_fit_user_id` refuses, naming what it found and where.
UserId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_USER_ID_CHARS,
        description=USER_ID_RULE,
        **documented(pattern=USER_ID_PATTERN),
    ),
    AfterValidator(_fit_user_id),
]


class ConsoleConfig(BaseModel):
    """`GET /api/console/config`: how the console lets a person sign in."""

    dev_sign_in: bool = Field(
        description="True in embedded dev mode: a user name is enough (`POST /api/dev/token`)"
    )
    max_message_chars: int = Field(
        default=MAX_MESSAGE_CHARS,
        description="The most characters a chat message may have (once trimmed): the console "
        "says so before sending a longer one, which the gateway would refuse (413)",
    )


class DevTokenBody(BaseModel):
    """Who to mint a token for."""

    model_config = ConfigDict(extra="forbid")

    user_id: UserId = Field(examples=["alice"])


class DevToken(BaseModel):
    """A bearer token for `user_id`, as `baton token --user <user_id>` would mint it."""

    token: str
    user_id: str


class ConsoleAssets:
    """The console's files, read once from the package."""

    def __init__(self) -> None:
        folder = files(CONSOLE_PACKAGE).joinpath(CONSOLE_FOLDER)
        self.bodies = {name: folder.joinpath(name).read_bytes() for name in ASSETS}

    def response(self, name: str) -> Response:
        """The file with its content type and the no-surprises headers; 404 if unknown."""
        if name not in self.bodies:
            raise ApiError(404, ErrorCode.NOT_FOUND.value, f"no console file {name!r}")
        return Response(self.bodies[name], media_type=ASSETS[name], headers=_HEADERS)


def install_console(app: FastAPI, *, dev_sign_in: bool) -> None:
    """Add `/`, `/console/<file>`, `/api/console/config` and, in dev mode, `/api/dev/token`."""
    assets = ConsoleAssets()
    router = APIRouter(route_class=CheckedJsonRoute)  # the dev token's body, as every route's

    @router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index() -> Response:
        return assets.response("index.html")

    @router.api_route("/console/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    async def asset(name: str) -> Response:
        return assets.response(name)

    @router.get("/api/console/config", response_model=ConsoleConfig, tags=["console"])
    async def config() -> ConsoleConfig:
        """How to sign in to the console; needs no token."""
        return ConsoleConfig(dev_sign_in=dev_sign_in)

    if dev_sign_in:
        router.add_api_route(
            "/api/dev/token",
            dev_token,
            methods=["POST"],
            response_model=DevToken,
            tags=["console"],
            dependencies=[Depends(own_loopback_page)],
            responses={
                403: {"model": HttpErrorResponse, "description": "Not asked on loopback"},
                422: {"model": HttpErrorResponse, "description": "Bad user_id"},
            },
        )
    app.include_router(router)


async def own_loopback_page(request: Request) -> None:
    """403 unless the request names a loopback host and, if it has an Origin, is this page's.

    Checked before the body, so a page that is refused learns nothing about names. The rest of
    the API needs no such check: it wants a bearer token in a header, which a page of another
    origin can neither read from the console's storage nor, now, mint here.
    """
    host = request.headers.get("host")
    problem = host_problem(host) or origin_problem(
        request.headers.get("origin"), request.url.scheme, host or ""
    )
    if problem is not None:
        raise ApiError(
            403,
            ErrorCode.FORBIDDEN.value,
            f"dev sign-in answers only pages of this gateway opened on a loopback address: "
            f"{problem}; open the console at http://127.0.0.1:<port>, or sign in with a token "
            f"from `baton token --user <name>`",
        )


async def dev_token(request: Request, body: Annotated[DevTokenBody, Body()]) -> DevToken:
    """Embedded dev mode only (`BATON_DEV_SIGN_IN=true`): a token for any user name, asked
    on a loopback address by a page of this gateway (or a client that sends no Origin)."""
    token = mint_token(deps_of(request).jwt_secret, body.user_id)
    return DevToken(token=token, user_id=body.user_id)
