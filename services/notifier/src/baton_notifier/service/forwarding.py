"""HTTP request -> contract Query/Command -> owner over NATS -> reply, or an HTTP error."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from baton_auth import Identity
from baton_contracts import Command, ErrorCode, ErrorDetail, Query, RemoteError
from baton_contracts.dag_runs import CancelDagRun, StartDagRun
from baton_contracts.workflow_api import SendMessage, SignalWorkflow, StartWorkflow
from baton_notifier.domain.errors import ApiError, field_path, from_remote
from baton_notifier.domain.origins import NOWHERE, Origins
from baton_notifier.service.ports import Again, Requester

M = TypeVar("M", bound=Query | Command)

# Fields the caller's identity decides; a body can never set them.
IDENTITY_FIELDS = ("user_id", "project_id")
# Fields the gateway sets as it sends; a body can never set them either.
GATEWAY_FIELDS = ("deadline",)
# Commands whose owner answers a repeat once: a start returns the user's active instance (one
# per user and workflow, a unique index), a signal or a chat turn is keyed by its command id
# or client message id, a cancel of a cancelled run answers that it already was.
ANSWERED_ONCE = (StartWorkflow, SignalWorkflow, SendMessage, CancelDagRun)


def again_for(message: Query | Command) -> Again:
    """When `message` is sent again while its owner restarts: a query, or a command answered
    once, also after a replica that took it stopped before answering (`Again.GONE`); any
    other command (a DAG save, delete or rollback, a run start without `Idempotency-Key`)
    only while no replica takes it, when nothing was done (`Again.UNSENT`). Never after a
    timeout: a command may still be running then."""
    if isinstance(message, (Query, *ANSWERED_ONCE)):
        return Again.GONE
    if isinstance(message, StartDagRun) and message.request_id is not None:
        return Again.GONE
    return Again.UNSENT


class Forwarder:
    """Builds the contract message for a caller and sends it to its owner with a timeout.

    `origins` says where in the request each field of the message came from, so that an
    error names it as the client sent it (`path.instance_id`); a field of a `body` given
    here is `body.<field>` unless `origins` says otherwise.
    """

    def __init__(
        self,
        requester: Requester,
        timeout: float,
        slow_timeout: float | None = None,
        resend_after: float | None = None,
    ) -> None:
        self._requester = requester
        self.timeout = timeout
        self.slow_timeout = max(timeout, slow_timeout or timeout)
        self.resend_after = resend_after
        """When a `send_json(..., resend=True)` is sent again unanswered (None: never)."""

    def build(
        self,
        model: type[M],
        identity: Identity,
        body: Mapping[str, Any] | None = None,
        *,
        origins: Origins = NOWHERE,
        **fields: Any,
    ) -> M:
        """The message from the body and path fields, with `user_id` taken from the identity."""
        body = {
            k: v
            for k, v in (body or {}).items()
            if k not in IDENTITY_FIELDS and k not in GATEWAY_FIELDS
        }
        data: dict[str, Any] = {**body, **fields}
        if "user_id" in model.model_fields:
            data["user_id"] = identity.user_id
        if "project_id" in model.model_fields and identity.project_id is not None:
            data["project_id"] = identity.project_id
        try:
            message = cast(M, model.model_validate(data))
        except ValidationError as exc:
            named = origins.with_body(body)
            details = [_detail(error, named) for error in exc.errors()]
            summary = "; ".join(f"{d.field}: {d.message}" for d in details)
            raise ApiError.invalid(f"request is invalid: {summary}", details) from None
        return message

    async def send(
        self, message: Query | Command, *, origins: Origins = NOWHERE, slow: bool = False
    ) -> BaseModel:
        """The owner's reply, or the `ApiError` its typed error maps to; sent again while its
        owner restarts, within its timeout, as `again_for` says.

        `slow` requests (a chat turn waits for a model) get `slow_timeout` instead of `timeout`.
        """
        timeout = self.slow_timeout if slow else self.timeout
        message = with_deadline(message, timeout)
        try:
            try:
                return await self._requester.request(
                    message, timeout=timeout, again=again_for(message)
                )
            except RemoteError as exc:
                if (older := without_deadline(message, exc)) is None:
                    raise
                return await self._requester.request(
                    older, timeout=time_left(message, exc), again=again_for(older)
                )
        except RemoteError as exc:
            raise from_remote(exc.body, origins) from exc

    async def send_json(
        self,
        message: Query | Command,
        *,
        origins: Origins = NOWHERE,
        slow: bool = False,
        resend: bool = False,
    ) -> bytes:
        """`send`, answered with the owner's reply JSON as it came, for a route to send on
        unchanged: the hot routes of a turn (a signal, a chat message) then neither decode the
        reply nor have FastAPI check and encode it again. `resend`: sent again after
        `resend_after` unanswered (`Requester.request_json`), for a message whose owner
        answers a repeat from the same work (a chat turn's `client_message_id`)."""
        timeout = self.slow_timeout if slow else self.timeout
        message = with_deadline(message, timeout)
        resend_after = self.resend_after if resend else None
        try:
            try:
                return await self._send_json(message, timeout, resend_after)
            except RemoteError as exc:
                if (older := without_deadline(message, exc)) is None:
                    raise
                return await self._send_json(older, time_left(message, exc), resend_after)
        except RemoteError as exc:
            raise from_remote(exc.body, origins) from exc

    async def _send_json(
        self, message: Query | Command, timeout: float, resend_after: float | None
    ) -> bytes:
        again = again_for(message)
        if resend_after is None:
            return await self._requester.request_json(message, timeout=timeout, again=again)
        return await self._requester.request_json(
            message, timeout=timeout, resend_after=resend_after, again=again
        )

    async def forward(
        self,
        model: type[M],
        identity: Identity,
        body: Mapping[str, Any] | None = None,
        *,
        origins: Origins = NOWHERE,
        **fields: Any,
    ) -> BaseModel:
        """`build` then `send`: the one call a route makes."""
        message = self.build(model, identity, body, origins=origins, **fields)
        return await self.send(message, origins=origins.with_body(body) if body else origins)


def with_deadline(message: M, timeout: float) -> M:
    """`message` with its `deadline`, when it has one (a DAG request that writes), set to when
    the gateway stops waiting for its answer: the owner then begins the write early enough for
    its answer to come back in time, or refuses it with nothing written. A request held up
    anywhere before its handler (a paused or starved service, a queue) went in after the
    gateway had answered 503. Read now, just before the send that the wait begins with."""
    takes = "deadline" in type(message).model_fields
    if not takes or getattr(message, "deadline", None) is not None:
        return message
    stops = datetime.now(UTC) + timedelta(seconds=timeout)
    return cast(M, message.model_copy(update={"deadline": stops}))


def without_deadline(message: M, refused: RemoteError) -> M | None:
    """`message` without its `deadline` when its owner refused it for that field alone: an
    owner of a release before the field (a workflow service older than the gateway, while a
    deploy upgrades them one at a time) refuses it as unknown, having done nothing. Sent again
    without it, the request is bounded by the owner's own timeouts, as before the field.
    None for any other answer."""
    body = refused.body
    if body.code != ErrorCode.INVALID or getattr(message, "deadline", None) is None:
        return None
    if not body.details or any(detail.field != "deadline" for detail in body.details):
        return None
    return cast(M, message.model_copy(update={"deadline": None}))


def time_left(message: Query | Command, refused: RemoteError) -> float:
    """Seconds until `message`'s deadline, for its send again without it; `refused` raised
    when none are left."""
    deadline = getattr(message, "deadline", None)
    left = 0.0 if deadline is None else (deadline - datetime.now(UTC)).total_seconds()
    if left <= 0:
        raise refused
    return left


def _detail(error: Any, origins: Origins) -> ErrorDetail:
    message = str(error["msg"])
    message = message[:1].lower() + message[1:]
    return ErrorDetail(field=origins.name(field_path(tuple(error["loc"]))), message=message)
