"""The HTTP API: health, identity, and the routes that forward to owners over NATS."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.openapi.models import HTTPBearer as HTTPBearerModel
from fastapi.responses import JSONResponse
from fastapi.security.base import SecurityBase
from fastapi.telemetry import TelemetryConfig
from opentelemetry.trace import TracerProvider
from pydantic import BaseModel

from baton_auth import Identity, InvalidToken, TokenRefusal, verify_token
from baton_notifier.domain.errors import UNAUTHORIZED_DESCRIPTION, ApiError, HttpErrorResponse
from baton_notifier.domain.health import ServiceReport
from baton_notifier.entrypoints.api_docs import install_api_docs
from baton_notifier.entrypoints.body_gate import BodyGateMiddleware
from baton_notifier.entrypoints.head_requests import GatewayRoute, openapi_of_gets
from baton_notifier.entrypoints.http_errors import install_error_handlers
from baton_notifier.entrypoints.json_body import CheckedJsonRoute
from baton_notifier.service.forwarding import Forwarder
from baton_notifier.service.ports import Connection, Requester
from baton_notifier.service.services_health import check_services


@dataclass(frozen=True)
class HttpDeps:
    """What the routes use; `bootstrap.build` fills it, with fakes in unit tests."""

    jwt_secret: str
    forwarder: Forwarder
    requester: Requester
    connection: Connection
    max_body_bytes: int
    tracer_provider: TracerProvider | None = None
    health_services: Sequence[str] | None = None
    """The owners `/api/services` reports on; None: every owner the contracts name."""
    """Where the gateway's HTTP spans go; None when tracing is off (`setup_telemetry`)."""


class BearerIdentity(SecurityBase):
    """`Authorization: Bearer <jwt>` -> the caller's `Identity`, or 401.

    One dependency that is also the OpenAPI bearer scheme: FastAPI documents a `SecurityBase`
    dependency as a security requirement of every route that uses it. `HTTPBearer` as a
    sub-dependency did the same, but solving it cost every `/api` request about 15 µs
    (measured in-process, a tenth of the gateway's own time for a workflow signal).
    """

    def __init__(self, description: str) -> None:
        self.model = HTTPBearerModel(description=description)
        self.scheme_name = "HTTPBearer"

    # `async def` although it never awaits: FastAPI runs a plain `def` dependency in a worker
    # thread, two thread hand-offs per request for a few microseconds of work.
    async def __call__(self, request: Request) -> Identity:
        scheme, _, token = one_authorization(request).partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise ApiError.unauthorized(
                "missing or malformed Authorization header; expected 'Bearer <token>'",
                TokenRefusal.MISSING,
            )
        try:
            return verify_token(deps_of(request).jwt_secret, token)
        except InvalidToken as exc:
            raise ApiError.unauthorized(str(exc), exc.reason) from None


def one_authorization(request: Request) -> str:
    """The request's one `Authorization` header ("" when none), or 401 when it came twice.

    Which one speaks for the caller? The first was taken, unsaid: a proxy in front that adds
    its own, or checks the last, would then vouch for another token than the one acted on."""
    sent = request.headers.getlist("authorization")
    if len(sent) > 1:
        raise ApiError.unauthorized(
            f"Authorization header sent {len(sent)} times; send one", TokenRefusal.MALFORMED
        )
    return sent[0] if sent else ""


def deps_of(request: Request) -> HttpDeps:
    """The dependencies the app was built with."""
    deps: HttpDeps = request.app.state.deps
    return deps


current_identity = BearerIdentity("A JWT from `baton token --user <name>`.")


# `async def` for the same reason as `BearerIdentity.__call__`.
async def forwarder(request: Request) -> Forwarder:
    """The forwarding helper, for routes that send a contract message to its owner."""
    return deps_of(request).forwarder


CurrentIdentity = Annotated[Identity, Depends(current_identity)]
CurrentForwarder = Annotated[Forwarder, Depends(forwarder)]


class HealthBody(BaseModel):
    """`/health`: whether the gateway can reach NATS."""

    status: str
    checks: dict[str, bool]


class MeBody(BaseModel):
    """`/api/me`: who the token speaks for."""

    user_id: str
    project_id: str | None


class ServicesBody(BaseModel):
    """`/api/services`: every owner as seen from the gateway."""

    services: dict[str, ServiceReport]


def api_router() -> APIRouter:
    """An `/api` router; each of its routes takes `CurrentIdentity`, so each needs a token.

    Each route, not the router: a router-level dependency beside the route's own parameter is
    solved twice per request (cached, but FastAPI still walks it), about 95k instructions of a
    signal's 1.16M at the gateway (callgrind). `test_every_route_but_the_public_ones_needs_a_token`
    holds every route to it.
    """
    return APIRouter(
        prefix="/api",
        route_class=CheckedJsonRoute,
        responses={401: {"model": HttpErrorResponse, "description": UNAUTHORIZED_DESCRIPTION}},
    )


def create_app(deps: HttpDeps) -> FastAPI:
    """The FastAPI app with error handling, the body limit, and the built-in routes."""
    app = FastAPI(
        title="Baton gateway",
        version="0.1.0",
        description="HTTP edge of Baton: every `/api` route needs `Authorization: Bearer <jwt>`.",
        responses={
            413: {"model": HttpErrorResponse, "description": "Body over BATON_MAX_BODY_BYTES"},
            415: {
                "model": HttpErrorResponse,
                "description": "Body sent compressed, or as a media type the route does not read",
            },
            422: {"model": HttpErrorResponse, "description": "Invalid request"},
        },
        # Added last (below): FastAPI matches a request against the routes in order, and each
        # route passed costs the API's hot routes (a signal, a chat turn) about 40k
        # instructions (measured with callgrind), so the documentation comes after them.
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        telemetry=fastapi_telemetry(deps.tracer_provider),
        # `/api/workflows/` is a 404 naming `/api/workflows` (`http_errors`), not a 307 to
        # an absolute address whose scheme is the one the gateway itself was reached by.
        redirect_slashes=False,
    )
    app.router.route_class = GatewayRoute  # `/health`, and any route added to the app itself
    app.openapi = openapi_of_gets(app)  # type: ignore[method-assign]
    app.state.deps = deps
    install_error_handlers(app)
    app.add_middleware(BodyGateMiddleware, max_body_bytes=deps.max_body_bytes)
    app.add_api_route(
        "/health",
        health,
        methods=["GET"],
        response_model=HealthBody,
        responses={503: {"model": HealthBody, "description": "Not connected to NATS"}},
    )
    # Imported here: the route modules import this one for api_router and the dependencies.
    from baton_notifier.entrypoints.agents_http import agents_router
    from baton_notifier.entrypoints.dag_http import dag_router
    from baton_notifier.entrypoints.workflows_http import workflows_router

    app.include_router(workflows_router())
    app.include_router(_builtin_api())
    app.include_router(agents_router())
    app.include_router(dag_router())
    app.openapi_url = "/openapi.json"
    app.setup()  # the OpenAPI route, after the API's
    install_api_docs(app)  # /docs and /redoc, their scripts the gateway's own
    return app


def fastapi_telemetry(provider: TracerProvider | None) -> TelemetryConfig:
    """FastAPI's own OpenTelemetry for the gateway: HTTP spans on Baton's tracer provider when
    tracing is on, nothing when it is off.

    Left to its defaults, FastAPI asks the global tracer, meter and logger providers on every
    request whether one is configured (2-7 us a request, measured). Baton sets up a tracer
    provider only, and only as the process starts (`setup_telemetry`), so that is decided once,
    here."""
    if provider is None:
        return {"tracing": False, "metrics": False, "logs": False}
    return {"tracer_provider": provider, "metrics": False, "logs": False}


async def health(request: Request) -> JSONResponse:
    """200 while the NATS connection is up, 503 otherwise."""
    up = deps_of(request).connection.is_connected
    body = HealthBody(status="ok" if up else "unavailable", checks={"nats": up})
    return JSONResponse(body.model_dump(), status_code=200 if up else 503)


def _builtin_api() -> APIRouter:
    router = api_router()

    @router.get("/me", response_model=MeBody)
    async def me(identity: CurrentIdentity) -> MeBody:
        """The identity the bearer token carries."""
        return MeBody(user_id=identity.user_id, project_id=identity.project_id)

    @router.get("/services", response_model=ServicesBody)
    async def services(request: Request, _: CurrentIdentity) -> ServicesBody:
        """Every owner's health, asked over NATS concurrently within the request timeout."""
        deps = deps_of(request)
        reports = await check_services(deps.requester, deps.forwarder.timeout, deps.health_services)
        return ServicesBody(services=reports)

    return router
