"""`/api/events`: live events as server-sent events (`id: <epoch>-<seq>`, `event: <type>`, JSON
data)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from baton_auth import Identity, InvalidToken
from baton_contracts import ErrorDetail
from baton_notifier.domain.errors import TOO_MANY_SESSIONS, ApiError
from baton_notifier.domain.live import (
    INSTANCE_ID_PATTERN,
    BadLiveRequest,
    notice,
    parse_instance_id,
    sse_message,
    too_many_sessions_reason,
)
from baton_notifier.domain.stream_position import (
    EPOCH_PATTERN,
    POSITION_PATTERN,
    Position,
    parse_epoch,
    parse_position,
    resume_point,
)
from baton_notifier.entrypoints.documented import documented
from baton_notifier.entrypoints.http import one_authorization
from baton_notifier.entrypoints.live_routes import (
    SSE_TOKEN_HINT,
    EventStreamResponse,
    identify,
    live_of,
    one_token,
)
from baton_notifier.entrypoints.query_once import refuse_repeated
from baton_notifier.service.live import LiveEvents, SessionEnded, TooManySessions

# A scheme name of its own: under the API's `HTTPBearer` name, this description (the last one
# registered) would be what OpenAPI said of every route's token.
_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="HTTPBearerOrTokenParameter",
    description="A JWT; or pass it as ?token=<jwt>.",
)

RETRY_MILLISECONDS = 1000
"""How long an `EventSource` waits before it reconnects (with `Last-Event-ID`)."""


_READ_ONCE = frozenset({"instance_id", "last_seq", "epoch"})


def stream_identity(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    token: Annotated[str | None, Query(description="The JWT, if headers cannot be set")] = None,
) -> Identity:
    """The caller named by a bearer header or a `token` parameter, or 401.

    `token` documents the parameter; every `?token=` is read, so two that differ are refused."""
    one_authorization(request)  # HTTPBearer reads the first of two, as the API routes did
    header = credentials.credentials if credentials else None
    queried = request.query_params.getlist("token")
    try:
        sent = one_token([("the Authorization header", header), *(("?token=", q) for q in queried)])
        return identify(request, sent, SSE_TOKEN_HINT)
    except InvalidToken as exc:
        raise ApiError.unauthorized(str(exc), exc.reason) from None


async def events_stream(
    request: Request,
    identity: Annotated[Identity, Depends(stream_identity)],
    # The patterns only document what the parsers below take (`documented`): refused here,
    # FastAPI's own message would replace theirs, which name the parameter and the form.
    instance_id: Annotated[
        str | None,
        Query(description="Only this instance's events", **documented(INSTANCE_ID_PATTERN)),
    ] = None,
    last_seq: Annotated[
        str | None,
        Query(
            description="Resume after this seq, or this id: <epoch>-<seq>",
            **documented(POSITION_PATTERN),
        ),
    ] = None,
    epoch: Annotated[
        str | None,
        Query(
            description="The epoch of the stream last_seq counts in",
            **documented(EPOCH_PATTERN),
        ),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(description="Set by EventSource: <epoch>-<seq>", **documented(POSITION_PATTERN)),
    ] = None,
) -> EventStreamResponse:
    """Your events as they happen; after `Last-Event-ID` (or `last_seq`), the missed ones first."""
    # Each given once: the last of two was taken unsaid (`query_once`); `?token=` has its rule.
    refuse_repeated(request.query_params, _READ_ONCE)
    # An empty Last-Event-ID (a proxy's, or an EventSource's that saw no id yet) resumes
    # nothing: `?last_seq` then still counts.
    resume = (
        ("Last-Event-ID", "header.last-event-id", last_event_id)
        if last_event_id
        else ("last_seq", "query.last_seq", last_seq)
    )
    try:
        instance = parse_instance_id(instance_id)
    except BadLiveRequest as exc:
        raise _invalid("query.instance_id", exc) from None
    name, field, value = resume
    try:
        position = parse_position(value, name=name)
    except BadLiveRequest as exc:
        raise _invalid(field, exc) from None
    try:
        # The id's own epoch wins: an EventSource keeps its URL while its Last-Event-ID moves on.
        after = resume_point(position, parse_epoch(epoch))
    except BadLiveRequest as exc:
        raise _invalid("query.epoch", exc) from None
    live = live_of(request)
    if not live.events.has_room(identity.user_id):
        limit = live.events.sessions_per_user or 0
        raise ApiError(429, TOO_MANY_SESSIONS, too_many_sessions_reason(limit))
    body = _stream(live.events, identity, instance, after, live.keepalive_seconds)
    return EventStreamResponse(
        body, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


def _invalid(field: str, exc: BadLiveRequest) -> ApiError:
    return ApiError.invalid(str(exc), [ErrorDetail(field=field, message=str(exc))])


async def _stream(
    events: LiveEvents,
    identity: Identity,
    instance_id: str | None,
    after: Position | None,
    keepalive: float,
) -> AsyncIterator[str]:
    try:
        async with events.subscribe(
            identity.user_id,
            instance_id=instance_id,
            after_seq=None if after is None else after.seq,
            epoch=None if after is None else after.epoch,
            valid_until=identity.valid_until,  # then the session ends: `closed` with 4401
        ) as session:
            yield f"retry: {RETRY_MILLISECONDS}\n\n"  # also tells the client it is subscribed
            while True:
                try:
                    frame = await session.next(timeout=keepalive)
                except SessionEnded as end:
                    # EventSource reconnects by itself when the stream ends, sending
                    # Last-Event-ID (with the same token: after 4401 that is refused, and the
                    # client needs a new one).
                    yield sse_message(notice("closed", code=end.code, reason=end.reason))
                    return
                yield ": keepalive\n\n" if frame is None else sse_message(frame)
    except TooManySessions as exc:  # another stream of the user's began since the check: rare
        yield sse_message(notice("closed", code=exc.code, reason=exc.reason))
