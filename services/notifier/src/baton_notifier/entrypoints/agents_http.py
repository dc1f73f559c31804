"""`/api/inbox` and `/api/memory`: what the agents kept for you, asked of the agent-runner."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from baton_contracts import ids
from baton_contracts.agent_api import InboxItems, ListInboxItems, ListMemoryFacts, MemoryFacts
from baton_notifier.domain.errors import HttpErrorResponse
from baton_notifier.domain.origins import Origins
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity, api_router
from baton_notifier.entrypoints.query_numbers import WholeNumber

_ERRORS: dict[int | str, dict[str, Any]] = {
    503: {"model": HttpErrorResponse, "description": "The agent-runner or its store is down"},
}

# Where each message field came from, so an error names it so (see `Origins`).
INBOX = Origins({"limit": "query.limit"})
MEMORY = Origins({"category": "query.category", "query": "query.q", "limit": "query.limit"})


def agents_router() -> APIRouter:
    """The inbox and long-term memory of the signed-in user."""
    router = api_router()
    router.add_api_route(
        "/inbox", inbox, methods=["GET"], response_model=InboxItems, responses=_ERRORS
    )
    router.add_api_route(
        "/memory", memory, methods=["GET"], response_model=MemoryFacts, responses=_ERRORS
    )
    return router


async def inbox(
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    limit: Annotated[WholeNumber, Query(ge=1, le=1000)] = 100,
) -> Any:
    """Your inbox items, newest first (items kept for a later step are not shown yet)."""
    return await forwarder.forward(ListInboxItems, identity, limit=limit, origins=INBOX)


async def memory(
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    # A name, as the agents write them ("priorities"): " " answered [] as if a category.
    category: Annotated[ids.Category | None, Query()] = None,
    q: Annotated[
        str | None,
        Query(min_length=1, max_length=1000, description="Not blank (white space alone)"),
    ] = None,
    limit: Annotated[WholeNumber, Query(ge=1, le=1000)] = 100,
) -> Any:
    """Your long-term memory facts, of one `category` if given; with `q`, the nearest to it."""
    return await forwarder.forward(
        ListMemoryFacts, identity, category=category, query=q, limit=limit, origins=MEMORY
    )
