"""`/api/workflows`: conversation workflows, forwarded to the workflow service over NATS."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from baton_contracts.workflow_api import (
    MAX_VERSION,
    PAGE_LIMIT,
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
    SignalWorkflow,
    StartReply,
    StartWorkflow,
    TurnReply,
)
from baton_notifier.domain.errors import HttpErrorResponse
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity, api_router, deps_of
from baton_notifier.entrypoints.idempotency import TurnKey, one_key
from baton_notifier.entrypoints.lean_route import LeanRoute
from baton_notifier.entrypoints.query_numbers import WholeNumber
from baton_notifier.entrypoints.workflow_bodies import (
    ACTIVE_PAGE,
    IN_PATH,
    MESSAGE_ID_IN_BODY,
    MESSAGE_ID_IN_HEADER,
    PAGED,
    SIGNAL_ID_IN_BODY,
    SIGNAL_ID_IN_HEADER,
    InstanceId,
    MessageBody,
    SignalBody,
    StartBody,
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
            500: {
                "model": HttpErrorResponse,
                "description": "The step's agent has no profile on the agent-runner; nothing "
                "changed",
            },
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
