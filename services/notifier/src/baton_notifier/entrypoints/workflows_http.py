"""`/api/workflows`: conversation workflows, forwarded to the workflow service over NATS."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from baton_contracts import ids
from baton_contracts.signal_data import MAX_SIGNAL_DATA_DEPTH, STEP_RECORD_KEYS, SignalData
from baton_contracts.storable import NUL_FREE_PATTERN
from baton_contracts.workflow_api import (
    MAX_MESSAGE_CHARS,
    MAX_VERSION,
    MESSAGE_TEXT_PATTERN,
    PAGE_LIMIT,
    TARGET_STEP_MAX,
    Conversation,
    EventLog,
    ExplainInstance,
    Explanation,
    GetConversation,
    GetInstance,
    GetInstanceEvents,
    GetProgress,
    InstanceList,
    InstanceView,
    ListActiveInstances,
    MessageReply,
    ProgressView,
    SendMessage,
    SignalAction,
    SignalWorkflow,
    StartReply,
    StartWorkflow,
    TurnReply,
)
from baton_notifier.domain.errors import HttpErrorResponse
from baton_notifier.domain.origins import IDEMPOTENCY_KEY, Origins
from baton_notifier.entrypoints.documented import documented
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity, api_router, deps_of
from baton_notifier.entrypoints.idempotency import TurnKey, one_key
from baton_notifier.entrypoints.lean_route import LeanRoute
from baton_notifier.entrypoints.query_numbers import WholeNumber

InstanceId = Annotated[ids.InstanceId, Path()]

# Where each message field came from, so an error names it so (see `Origins`). An id a retry
# repeats is the body's when given there, else the Idempotency-Key's.
_INSTANCE = {"instance_id": "path.instance_id"}
IN_PATH = Origins(_INSTANCE)
ACTIVE_PAGE = Origins({"after": "query.after", "limit": "query.limit"})
PAGED = Origins({**_INSTANCE, "after_version": "query.after_version", "limit": "query.limit"})
SIGNAL_ID_IN_BODY = Origins({**_INSTANCE, "signal": "body", "command_id": "body.command_id"})
SIGNAL_ID_IN_HEADER = Origins({**_INSTANCE, "signal": "body", "command_id": IDEMPOTENCY_KEY})
_MESSAGE = {**_INSTANCE, "text": "body.text"}
MESSAGE_ID_IN_BODY = Origins({**_MESSAGE, "client_message_id": "body.client_message_id"})
MESSAGE_ID_IN_HEADER = Origins({**_MESSAGE, "client_message_id": IDEMPOTENCY_KEY})


class StartBody(BaseModel):
    """Which workflow to start."""

    model_config = ConfigDict(extra="forbid")

    workflow_id: str = Field(min_length=1, max_length=64, examples=["onboarding"])


_KEPT = ", ".join(sorted(STEP_RECORD_KEYS))


class SignalBody(BaseModel):
    """A manual signal; `command_id` (or an `Idempotency-Key` header) makes a retry count once."""

    model_config = ConfigDict(extra="forbid")

    action: SignalAction
    data: SignalData = Field(
        default_factory=dict,
        description="Merged into the current step's data: a JSON object, nested at most "
        f"{MAX_SIGNAL_DATA_DEPTH} levels deep, with no NUL character (U+0000) in any string "
        f"or key, and none of the keys the step's own record keeps ({_KEPT})",
        # The workflow service refuses such a key, naming `body.data.<key>`.
        json_schema_extra={
            "propertyNames": {
                "pattern": NUL_FREE_PATTERN,
                "not": {"enum": [*sorted(STEP_RECORD_KEYS)]},
            }
        },
    )
    shared: SignalData = Field(default_factory=dict)
    target_step: str | None = Field(
        default=None,
        max_length=TARGET_STEP_MAX,
        description="A step of the instance's workflow (`goto`); which steps it has is the "
        "workflow's, so a name it has not is refused by the workflow service (422 naming "
        "`body.target_step`)",
        **documented(min_length=1),
    )
    # No NUL, not blank: the command's `command_id` refuses either (`NonBlankText`), naming
    # `body.command_id`.
    command_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Your id for this signal; not blank (white space alone)",
        **documented(pattern=NUL_FREE_PATTERN),
    )


class MessageBody(BaseModel):
    """A chat message; resending the same `client_message_id` returns the same answer once."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        description="At least one character that is neither white space, a control "
        "character (Unicode Cc: BEL, ESC, ...) nor an invisible format character (Unicode Cf: "
        "zero-width spaces and joiners, the byte-order mark); "
        f"no NUL (U+0000); at most {MAX_MESSAGE_CHARS} characters once outer white space is "
        "trimmed (longer is 413)",
        examples=["Hi! I'm ready, let's go."],
        # The workflow service refuses a text that breaks it, naming `body.text`.
        **documented(pattern=MESSAGE_TEXT_PATTERN),
    )
    client_message_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Your id for this message; a retry with it asks the agent only once; "
        "not blank (white space alone)",
        # No NUL, not blank: `SendMessage.client_message_id` refuses either, naming
        # `body.client_message_id`.
        **documented(pattern=NUL_FREE_PATTERN),
    )


_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": HttpErrorResponse, "description": "No such workflow or instance (of yours)"},
    503: {"model": HttpErrorResponse, "description": "The workflow service did not answer"},
}


def as_sent(reply: bytes) -> Response:
    """The owner's reply JSON as the answer, unchanged: the route's `response_model` documents
    it, and FastAPI neither checks nor encodes a `Response` again."""
    return Response(content=reply, media_type="application/json")


def workflows_router() -> APIRouter:
    """Routes of seed 000 §8 plus `/events` and `/explain`."""
    router = api_router()
    # The two routes of every turn first: a request is matched against the routes in order.
    # Both lean: a well-formed request skips FastAPI's generic solving (`LeanRoute`).
    router.add_api_route(
        "/workflows/{instance_id}/signal",
        signal,
        methods=["POST"],
        route_class_override=LeanRoute,
        response_model=TurnReply,
        responses={
            **_ERRORS,
            409: {"model": HttpErrorResponse, "description": "Instance has ended"},
        },
    )
    router.add_api_route(
        "/workflows/{instance_id}/messages",
        send_message,
        methods=["POST"],
        route_class_override=LeanRoute,
        response_model=MessageReply,
        responses={
            **_ERRORS,
            409: {"model": HttpErrorResponse, "description": "Instance has ended"},
            413: {"model": HttpErrorResponse, "description": "Text is too long"},
            503: {
                "model": HttpErrorResponse,
                "description": "The agent or the workflow service did not answer; nothing changed",
            },
        },
    )
    router.add_api_route(
        "/workflows",
        start,
        methods=["POST"],
        response_model=InstanceView,
        status_code=201,
        responses={
            **_ERRORS,
            200: {"model": InstanceView, "description": "Your active instance of it, as it is"},
        },
    )
    router.add_api_route(
        "/workflows/active",
        active,
        methods=["GET"],
        response_model=InstanceListPage,
        responses=_ERRORS,
    )
    router.add_api_route(
        "/workflows/{instance_id}",
        instance,
        methods=["GET"],
        response_model=InstanceView,
        responses=_ERRORS,
    )
    router.add_api_route(
        "/workflows/{instance_id}/progress",
        progress,
        methods=["GET"],
        response_model=ProgressView,
        responses=_ERRORS,
    )
    router.add_api_route(
        "/workflows/{instance_id}/messages",
        messages,
        methods=["GET"],
        response_model=ConversationPage,
        responses=_ERRORS,
    )
    router.add_api_route(
        "/workflows/{instance_id}/events",
        events,
        methods=["GET"],
        response_model=EventLogPage,
        responses=_ERRORS,
    )
    router.add_api_route(
        "/workflows/{instance_id}/explain",
        explain,
        methods=["GET"],
        response_model=Explanation,
        responses=_ERRORS,
    )
    return router


async def start(
    body: StartBody, response: Response, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> InstanceView:
    """Start a workflow: 201 with a new instance, or 200 with the active one you already have."""
    reply = await forwarder.forward(StartWorkflow, identity, body.model_dump())
    assert isinstance(reply, StartReply)
    response.status_code = 201 if reply.created else 200
    return reply.instance


class InstanceListPage(InstanceList):
    """`InstanceList` as HTTP answers it: `next_after` always there, `null` on the last page."""

    next_after: str | None = None


# Checked by `ListActiveInstances` (`InstanceId`), which names `query.after` in its refusal.
ActiveAfter = Annotated[str | None, Query(examples=["469391e0-0128-4b3c-ba38-747b51bc3959"])]


async def active(
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    after: ActiveAfter = None,
    limit: PageLimit = PAGE_LIMIT,
) -> Any:
    """Your active instances, oldest first, with their current step and progress (each
    without its context: `GET /workflows/{id}` has it), a page at a time (`next_after`)."""
    return await forwarder.forward(
        ListActiveInstances, identity, after=after, limit=limit, origins=ACTIVE_PAGE
    )


async def instance(
    instance_id: InstanceId, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """One of your instances, with its context."""
    return await forwarder.forward(GetInstance, identity, instance_id=instance_id, origins=IN_PATH)


async def progress(
    instance_id: InstanceId, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Current step, every step's status, messages in the step, completion percentage."""
    return await forwarder.forward(GetProgress, identity, instance_id=instance_id, origins=IN_PATH)


async def signal(
    instance_id: InstanceId,
    body: SignalBody,
    identity: CurrentIdentity,
    request: Request,
    idempotency_key: TurnKey = None,
) -> Any:
    """A manual signal; the answer says `transitioned`, `stayed`, `blocked` or `forced`."""
    forwarder = deps_of(request).forwarder  # not a dependency: see `send_message`
    if idempotency_key is not None:
        one_key(request, idempotency_key, body.command_id, "body.command_id")
    command_id = body.command_id or idempotency_key or uuid.uuid4().hex
    fields = body.model_dump(exclude={"command_id"})
    keyed = idempotency_key and not body.command_id
    origins = SIGNAL_ID_IN_HEADER if keyed else SIGNAL_ID_IN_BODY
    message = forwarder.build(
        SignalWorkflow,
        identity,
        instance_id=instance_id,
        command_id=command_id,
        signal=fields,
        origins=origins,
    )
    return as_sent(await forwarder.send_json(message, origins=origins))


async def send_message(
    instance_id: InstanceId,
    body: MessageBody,
    identity: CurrentIdentity,
    request: Request,
    idempotency_key: TurnKey = None,
) -> Any:
    """Say something to the current step's agent: its answer, the outcome and the progress."""
    # Taken from the app, not as `CurrentForwarder`: every dependency FastAPI solves costs a
    # request about 90k instructions (callgrind), 8% of a signal's at the gateway, and this
    # route and `signal` are the two of every turn.
    forwarder = deps_of(request).forwarder
    if idempotency_key is not None:
        one_key(request, idempotency_key, body.client_message_id, "body.client_message_id")
    client_message_id = body.client_message_id or idempotency_key or uuid.uuid4().hex
    keyed = idempotency_key and not body.client_message_id
    origins = MESSAGE_ID_IN_HEADER if keyed else MESSAGE_ID_IN_BODY
    message = forwarder.build(
        SendMessage,
        identity,
        instance_id=instance_id,
        client_message_id=client_message_id,
        text=body.text,
        origins=origins,
    )
    # Sent again when unanswered (`BATON_CHAT_RESEND_SECONDS`): a workflow service killed
    # mid-turn tells no one, and the same client_message_id is answered once.
    return as_sent(await forwarder.send_json(message, origins=origins, slow=True, resend=True))


class ConversationPage(Conversation):
    """`Conversation` as HTTP answers it: `next_after_version` always there, `null` on the last
    page (the NATS reply leaves it off then, for a gateway older than paging)."""

    next_after_version: int | None = None


class EventLogPage(EventLog):
    """`EventLog` as HTTP answers it: `next_after_version` always there, `null` on the last page."""

    next_after_version: int | None = None


# At most a 64-bit integer: a larger one reached SQLite and answered 500.
AfterVersion = Annotated[WholeNumber, Query(ge=0, le=MAX_VERSION)]
PageLimit = Annotated[WholeNumber, Query(ge=1, le=PAGE_LIMIT)]


async def messages(
    instance_id: InstanceId,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    after_version: AfterVersion = 0,
    limit: PageLimit = PAGE_LIMIT,
) -> Any:
    """The instance's conversation, oldest first, a page at a time (`next_after_version`)."""
    return await forwarder.forward(
        GetConversation,
        identity,
        instance_id=instance_id,
        after_version=after_version,
        limit=limit,
        origins=PAGED,
    )


async def events(
    instance_id: InstanceId,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    after_version: AfterVersion = 0,
    limit: PageLimit = PAGE_LIMIT,
) -> Any:
    """The instance's event log, in order, a page at a time (`next_after_version`)."""
    return await forwarder.forward(
        GetInstanceEvents,
        identity,
        instance_id=instance_id,
        after_version=after_version,
        limit=limit,
        origins=PAGED,
    )


async def explain(
    instance_id: InstanceId, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Why the instance is (not) advancing: each criterion with its numbers, and the counter."""
    return await forwarder.forward(
        ExplainInstance, identity, instance_id=instance_id, origins=IN_PATH
    )
