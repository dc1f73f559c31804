"""The HTTP error body, and how a typed owner error becomes an HTTP status."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from baton_contracts import ErrorBody, ErrorCode, ErrorDetail
from baton_contracts.storable import format_path
from baton_notifier.domain.origins import NOWHERE, Origins

STATUS_BY_CODE: Mapping[ErrorCode, int] = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.CONFLICT: 409,
    ErrorCode.INVALID: 422,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.TOO_MANY: 429,
    # Forbidden answers as not found: a caller must not learn that another user's thing exists.
    ErrorCode.FORBIDDEN: 404,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.INTERNAL: 500,
}
"""HTTP status for each typed error an owner may answer with."""

UNAUTHORIZED = "unauthorized"
TOKEN_FIELD = "token"
"""The field of a 401's detail, whose message is why the token was refused (`expired`)."""
UNAUTHORIZED_DESCRIPTION = (
    'No valid bearer token; the one detail, `field: "token"`, says why as a stable reason: '
    "missing, malformed, bad_signature, wrong_algorithm, expired, not_yet_valid, wrong_issuer, "
    "wrong_audience, missing_claim or invalid_claim"
)
"""A 401's description in the OpenAPI document."""
UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
"""A body compressed, or of a media type its route does not read (415)."""
TOO_MANY_SESSIONS = "too_many_sessions"
"""The user holds as many live connections as the gateway allows one user (429)."""


class HttpErrorBody(BaseModel):
    """The `error` object of every error response."""

    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    details: list[ErrorDetail] = Field(default_factory=list)


class HttpErrorResponse(BaseModel):
    """Every error response: `{"error": {"code", "message", "details"}}`."""

    model_config = ConfigDict(frozen=True)

    error: HttpErrorBody


class ApiError(Exception):
    """An error that leaves the gateway as an HTTP response with the common error body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Sequence[ErrorDetail] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.body = HttpErrorResponse(
            error=HttpErrorBody(code=code, message=message, details=list(details))
        )
        self.headers = dict(headers or {})

    @classmethod
    def unauthorized(cls, message: str, reason: str) -> ApiError:
        """401 with the challenge a Bearer client expects; its one detail, `field: "token"`,
        gives `reason` (a `TokenRefusal`: `expired`, `malformed`, ...) for a program to act on
        without reading the message, whose words may change."""
        detail = ErrorDetail(field=TOKEN_FIELD, message=reason)
        return cls(401, UNAUTHORIZED, message, [detail], headers={"WWW-Authenticate": "Bearer"})

    @classmethod
    def invalid(cls, message: str, details: Sequence[ErrorDetail]) -> ApiError:
        """422: the request named fields with bad values."""
        return cls(422, ErrorCode.INVALID.value, message, details)


def from_remote(error: ErrorBody, origins: Origins = NOWHERE) -> ApiError:
    """The HTTP error for an owner's typed error, each detail naming its field where the
    request held it (`origins`): the owner names it by its path in the message. Where the
    message quotes a detail's field as `<field>: ` ("signal.data.x: ...", "2 problem(s):
    steps[0].id: ...; steps[1].id: ..."), it names it as the request did too ("body.data.x:
    ..."), so the two never disagree."""
    status = STATUS_BY_CODE[error.code]
    if error.code is ErrorCode.FORBIDDEN:
        return ApiError(status, ErrorCode.NOT_FOUND.value, "not found")
    details = [ErrorDetail(field=origins.name(d.field), message=d.message) for d in error.details]
    message = _with_why(error)
    renamed = {d.field: r.field for d, r in zip(error.details, details, strict=True)}
    for owned, name in renamed.items():
        if owned and name and owned != name:
            quoted = re.compile(rf"(?:^|(?<=: )|(?<=; )){re.escape(owned)}: ")
            message = quoted.sub(name.replace("\\", "\\\\") + ": ", message)  # as written
    return ApiError(status, error.code.value, message, details)


_NOBODY = re.compile(r"no responders on '(?P<owner>[\w-]+)\.[^']*'")
SERVICE_BY_OWNER = {
    "workflow": "the workflow service",
    "agent": "the agent-runner",
    "space": "the worker-space service",
    "trigger": "the trigger service",
}
"""Which service answers an owner's subjects (`contracts`: `<owner>.<kind>.<name>`)."""


def _with_why(error: ErrorBody) -> str:
    """The owner's message; a request that reached no replica at all says which service is not
    running, and that nothing was done: the bare "no responders on 'workflow.cmd.start'" told a
    user neither (the workflow service restarting, say)."""
    found = _NOBODY.fullmatch(error.message)
    if error.code is not ErrorCode.UNAVAILABLE or found is None:
        return error.message
    service = SERVICE_BY_OWNER.get(found["owner"], f"the {found['owner']} service")
    return (
        f"{error.message}: {service} is not running, or is restarting; nothing was done: try "
        "again shortly"
    )


def field_path(loc: Sequence[str | int]) -> str:
    """A pydantic error location as a path: `("body", "steps", 2)` -> `body.steps[2]`."""
    return format_path(tuple(loc))
