"""Every error the HTTP API returns has one body: `{"error": {"code", "message", "details"}}`."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

from baton_contracts import ErrorCode, ErrorDetail
from baton_contracts.documents import RepeatedKey
from baton_notifier.domain.errors import UNSUPPORTED_MEDIA_TYPE, ApiError, field_path
from baton_notifier.domain.media import is_json, media_type
from baton_notifier.entrypoints.body_gate import BodyTooLarge, too_large_response
from baton_notifier.entrypoints.json_body import UnstorableBody

log = logging.getLogger(__name__)

CODE_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: ErrorCode.NOT_FOUND.value,
    405: "method_not_allowed",
    409: ErrorCode.CONFLICT.value,
    413: ErrorCode.TOO_LARGE.value,
    415: UNSUPPORTED_MEDIA_TYPE,
    422: ErrorCode.INVALID.value,
    503: ErrorCode.UNAVAILABLE.value,
}


def install_error_handlers(app: FastAPI) -> None:
    """Route every kind of failure through the common error body."""
    app.add_exception_handler(ApiError, _api_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _http_exception)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _unexpected)


RETRY_AFTER_SECONDS = 2
"""`Retry-After` of a 503 that says no other: about how long the NATS client takes to
reconnect (it tries every 0.5 s) or an owner to be back, so a client neither hammers nor
gives up."""


def error_response(error: ApiError) -> JSONResponse:
    """The JSON response for an `ApiError`; a 503 says when to try again (`Retry-After`)."""
    headers = error.headers
    if error.status == 503 and not any(name.lower() == "retry-after" for name in headers):
        headers = {**headers, "Retry-After": str(RETRY_AFTER_SECONDS)}
    return JSONResponse(
        error.body.model_dump(mode="json"), status_code=error.status, headers=headers
    )


async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
    return error_response(exc)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    content_type = request.headers.get("content-type", "")
    details = [
        ErrorDetail(field="body", message=_no_body(content_type))
        if error.get("type") == "missing" and tuple(error.get("loc", ())) == ("body",)
        else _validation_detail(error)
        for error in exc.errors()
    ]
    summary = "; ".join(f"{d.field}: {d.message}" for d in details)
    return error_response(ApiError.invalid(f"request is invalid: {summary}", details))


def _no_body(content_type: str) -> str:
    """What to do about a body that did not come: "field required" said neither."""
    if is_json(media_type(content_type)):
        # The type was right and the body empty (a client that sets the header on every
        # request): "field required" named no field a user could find in the body.
        return "is empty; send a JSON object"
    # A body of another type was refused before (415, `refuse_unread_type`), so here no body
    # came at all.
    got = f"got {content_type!r}" if content_type else "none was sent"
    return f"send it as JSON with Content-Type: application/json ({got})"


def _validation_detail(error: dict[str, Any]) -> ErrorDetail:
    loc: Sequence[str | int] = error.get("loc", ())
    if error.get("type") == "json_invalid":
        # FastAPI puts the character offset after "body"; the caller needs the reason.
        reason = (error.get("ctx") or {}).get("error", "JSON decode error")
        return ErrorDetail(field="body", message=f"body is not valid JSON: {reason}")
    message = str(error.get("msg", "invalid"))
    # A missed pattern says what it asks in words: the types carry them (`baton_contracts.ids`).
    return ErrorDetail(field=field_path(loc), message=message[:1].lower() + message[1:])


HTTP_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
"""The methods a 405's `Allow` may name."""

UNPARSABLE_BODY = "There was an error parsing the body"
"""FastAPI's 400 for a body `json.loads` raised on with something other than a decode error:
invalid UTF-8, nesting deeper than the parser goes, an integer of over 4,300 digits."""


def _why(cause: BaseException | None) -> str:
    """Why `json.loads` could not read a body, in words (the exception's class alone, such as
    "ValueError", said nothing of a number of 5,000 digits)."""
    if isinstance(cause, RepeatedKey):
        return str(cause)
    if isinstance(cause, RecursionError):
        return "it nests deeper than the parser reads"
    if isinstance(cause, UnicodeDecodeError):
        return f"it is not UTF-8 (byte {cause.start})"
    if isinstance(cause, ValueError) and "integer string conversion" in str(cause):
        return f"a number has more than {sys.get_int_max_str_digits():,} digits"
    return type(cause).__name__ if cause is not None else "unreadable"


async def _http_exception(request: Request, exc: HTTPException) -> JSONResponse:
    if isinstance(exc, BodyTooLarge):  # a chunked body grew past the limit as a route read it
        return too_large_response(exc.limit)
    if exc.status_code == 400 and isinstance(exc.__cause__, UnstorableBody):
        found = exc.__cause__.found
        details = [ErrorDetail(field=each.path("body"), message=each.problem) for each in found]
        return error_response(ApiError.invalid(f"request is invalid: {exc.__cause__}", details))
    if exc.status_code == 400 and exc.detail == UNPARSABLE_BODY:
        detail = ErrorDetail(field="body", message=f"body is not valid JSON: {_why(exc.__cause__)}")
        return error_response(
            ApiError.invalid(f"request is invalid: body: {detail.message}", [detail])
        )
    code = CODE_BY_STATUS.get(exc.status_code, f"http_{exc.status_code}")
    headers = exc.headers
    message = str(exc.detail)
    if exc.status_code == 405:
        allowed = _allowed_methods(request)
        headers = {**(headers or {}), "Allow": allowed}
        message = f"{request.method} is not served at {request.url.path}; it takes {allowed}"
    if exc.status_code == 404 and not _served(request, request.url.path):
        message = _no_route(request)
    error = ApiError(exc.status_code, code, message, headers=headers)
    return error_response(error)


def _served(request: Request, path: str) -> bool:
    """Whether a route serves `path`, by any method."""
    scope = {**request.scope, "path": path}
    return any(route.matches(scope)[0] is not Match.NONE for route in request.app.router.routes)


def _no_route(request: Request) -> str:
    """The 404 of a path no route serves. One with a trailing slash names the path without
    it: the gateway redirected it (307, to an absolute `http://` address even behind an HTTPS
    proxy, which a client following it then sent its token to)."""
    path = request.url.path
    stripped = path.rstrip("/")
    if stripped != path and stripped and _served(request, stripped):
        return f"no route at {path}: send it to {stripped}, without the trailing slash"
    return f"no route at {path}"


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at the request's path. Starlette's 405 names only the
    first route whose path matched: `Allow: GET` on `/workflows`, which takes a POST too."""
    allowed = []
    for method in HTTP_METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] is Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return ", ".join(allowed)


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error in the gateway", exc_info=exc)
    return error_response(ApiError(500, ErrorCode.INTERNAL.value, "internal error"))
