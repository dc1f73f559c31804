"""`LeanRoute`: a route that takes a well-formed request without FastAPI's generic machinery.

For every request, FastAPI's route handler (`fastapi.routing.get_request_handler`) reads the
body, solves the dependencies and validates each parameter through code general enough for
forms, files, parameter models, aliases, scopes, yield dependencies and streams. On this
machine that cost about 0.065 ms of CPU per request of the bare framework (`bench.bare_http`):
0.12 ms with it, 0.054 with the same route taken as here. A signal's whole transition costs
every process together about 0.9 ms, so that is a fourteenth of it.

A `LeanRoute` takes a request whose every part is valid itself: it validates each parameter
with the very field FastAPI would validate it with (`ModelField.validate`), in the same order,
and calls the endpoint with the same arguments. Any request it would not take (a body that is
not plain JSON, a parameter that does not validate, a missing one) goes to FastAPI's handler,
which answers it exactly as it did before; so does every request while dependency overrides
are set, or while FastAPI's telemetry records the request (its spans stay as they were).

Only routes of a simple shape can be lean, and the route says so when it is built (`TypeError`
naming the parameter): path and header parameters, at most one JSON body (not embedded),
the `Request`, and dependencies that take the request alone (`async def`, as
`BearerIdentity`), and an endpoint that answers with a `Response` of its own.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine
from copy import deepcopy
from typing import Any, NoReturn

import fastapi.routing
from fastapi import Request, Response, params
from fastapi.dependencies.models import Dependant
from fastapi.telemetry import get_telemetry_data
from pydantic.fields import FieldInfo

from baton_notifier.entrypoints.json_body import CheckedJsonRoute

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
_UNSET = object()


class LeanRoute(CheckedJsonRoute):
    """A `CheckedJsonRoute` whose well-formed requests skip FastAPI's per-request solving."""

    def taking_checked(self, handler: Handler) -> Handler:
        served = _as_served(self)
        return handler if served is None else _LeanHandler(served, handler).handle


def _as_served(route: LeanRoute) -> Any:
    """The route as FastAPI serves it, or None when that cannot be known.

    Since FastAPI 0.16x an included route is served through an inclusion context that holds
    its effective dependant (the including routers' dependencies too) and dependency overrides
    provider; FastAPI builds the route's handler while that context is current. Read from a
    FastAPI internal: a FastAPI without it gets FastAPI's handler only, and
    `test_a_well_formed_signal_is_taken_without_fastapis_solving` says so.
    """
    current = getattr(fastapi.routing, "_effective_route_context_var", None)
    if current is None:
        return None
    context = current.get()
    if context is None:
        return route
    return context if getattr(context, "original_route", None) is route else None


class _Param:
    """One path or header parameter: where it is read and the field that validates it."""

    def __init__(self, field: Any, key: str, in_path: bool) -> None:
        self.field, self.key, self.in_path = field, key, in_path
        info: FieldInfo = field.field_info
        self.loc = ("path" if in_path else "header", key)
        self.required = info.is_required()
        self.default = None if self.required else field.default
        self.validate_default = bool(info.validate_default)


class _LeanHandler:
    def __init__(self, route: Any, full: Handler) -> None:
        dependant: Dependant = route.dependant
        _refuse_unless_lean(route.path, dependant)
        assert dependant.call is not None  # an `async def`: `_refuse_unless_lean`
        self._full = full
        self._overrides = route.dependency_overrides_provider
        self._call: Callable[..., Awaitable[Any]] = dependant.call
        self._route = route.path
        self._request_name = dependant.request_param_name
        self._depends = [(sub.name, sub.call) for sub in dependant.dependencies]
        # Under its alias: FastAPI's own, a header's with `-` for `_` already.
        self._params = [_Param(f, f.alias, True) for f in dependant.path_params] + [
            _Param(f, f.alias, False) for f in dependant.header_params
        ]
        self._body = dependant.body_params[0] if dependant.body_params else None

    async def handle(self, request: Request) -> Response:
        if (overrides := self._overrides) is not None and getattr(
            overrides, "dependency_overrides", None
        ):
            return await self._full(request)
        if get_telemetry_data() is not None:
            return await self._full(request)
        body: Any = _UNSET
        if self._body is not None:
            body = await _plain_json(request)
            if body is _UNSET:
                return await self._full(request)
        values: dict[str, Any] = {}
        # FastAPI's order: the body is read, the dependencies solved (their errors, a 401,
        # are raised as they come), then the parameters and the body validated.
        for name, call in self._depends:
            value = await call(request)  # type: ignore[misc]
            if name is not None:  # else an including router's: solved for its effect
                values[name] = value
        for param in self._params:
            value = _value_of(param, request)
            if value is _UNSET:
                if param.required:
                    return await self._full(request)
                values[param.field.name] = deepcopy(param.default)
                if not param.validate_default:
                    continue
                value = values[param.field.name]
            checked, errors = param.field.validate(value, values, loc=param.loc)
            if errors:
                return await self._full(request)
            values[param.field.name] = checked
        if self._body is not None:
            checked, errors = self._body.validate(body, values, loc=("body",))
            if errors:
                return await self._full(request)
            values[self._body.name] = checked
        if self._request_name is not None:
            values[self._request_name] = request
        answer = await self._call(**values)
        if not isinstance(answer, Response):
            raise TypeError(
                f"{self._route}: a LeanRoute's endpoint answers with a Response; "
                f"it returned {type(answer).__name__}"
            )
        return answer


def _value_of(param: _Param, request: Request) -> Any:
    source = request.path_params if param.in_path else request.headers
    value = source.get(param.key)
    return _UNSET if value is None else value


async def _plain_json(request: Request) -> Any:
    """The body as JSON when it is sent as plain `application/json`, as FastAPI reads it then
    (`Request.json`, here `CheckedJsonRequest`'s); else, or when it does not read, `_UNSET`:
    FastAPI's handler then answers as it always has."""
    content_type = request.headers.get("content-type", "")
    if content_type.partition(";")[0].strip().lower() != "application/json":
        return _UNSET
    if not await request.body():
        return _UNSET
    try:
        return await request.json()
    except Exception:  # FastAPI's handler reads it again and says what is wrong
        return _UNSET


def _refuse_unless_lean(path: str, dependant: Dependant) -> None:
    """`TypeError` naming what a route has that `LeanRoute` does not read itself."""

    def refuse(what: str) -> NoReturn:
        raise TypeError(f"{path}: LeanRoute does not read {what}; use CheckedJsonRoute")

    for name in (
        "query_params",
        "cookie_params",
    ):
        fields = getattr(dependant, name)
        if fields:
            refuse(f"{name.replace('_', ' ')} ({', '.join(f.name for f in fields)})")
    for name in (
        "websocket_param_name",
        "http_connection_param_name",
        "response_param_name",
        "background_tasks_param_name",
        "security_scopes_param_name",
    ):
        if getattr(dependant, name) is not None:
            refuse(f"parameter {getattr(dependant, name)!r} ({name.removesuffix('_param_name')})")
    if not inspect.iscoroutinefunction(dependant.call):
        refuse("a plain `def` endpoint (FastAPI runs it in a thread)")
    if len(dependant.body_params) > 1:
        refuse(f"a body of several parts ({', '.join(f.name for f in dependant.body_params)})")
    for body in dependant.body_params:
        info = body.field_info
        if not isinstance(info, params.Body) or isinstance(info, params.Form):
            refuse(f"body {body.name!r} as anything but JSON")
        elif info.embed:
            refuse(f"the embedded body {body.name!r}")
    for field in (*dependant.path_params, *dependant.header_params):
        if field.field_info.validation_alias is not None or field.config:
            refuse(f"parameter {field.name!r} under a validation alias or its own config")
    for sub in dependant.dependencies:
        _refuse_unless_request_only(path, sub)


def _refuse_unless_request_only(path: str, sub: Dependant) -> None:
    call = sub.call
    coroutine = inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        getattr(call, "__call__", None)  # noqa: B004 - an instance with an async __call__
    )
    if (
        not coroutine
        or sub.request_param_name is None
        or sub.dependencies
        or sub.path_params
        or sub.query_params
        or sub.header_params
        or sub.cookie_params
        or sub.body_params
        or sub.own_oauth_scopes
    ):
        raise TypeError(
            f"{path}: LeanRoute solves only dependencies that take the request alone "
            f"(`async def`); {sub.name or sub.call!r} is not one; use CheckedJsonRoute"
        )
