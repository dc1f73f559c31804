"""DAG workflow definitions: list, save, read, delete and validate (`/workflows[/{name}]`).

Saving and validating read the document from the raw body, so this module also holds the
size and encoding checks on that text; its route class (`DocumentRoute`) has already refused
a media type that is neither JSON nor YAML (`domain/media.py`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Request, Response
from pydantic import Field

from baton_contracts.base import ErrorDetail
from baton_contracts.dag_api import (
    MAX_DEFINITION_CHARS,
    DagWorkflowList,
    DagWorkflowSaved,
    DeleteDagWorkflow,
    GetDagWorkflow,
    ListDagWorkflows,
    SaveDagWorkflow,
    ValidateDagWorkflow,
)
from baton_contracts.workflow_api import PAGE_LIMIT
from baton_notifier.domain.errors import ApiError
from baton_notifier.domain.media import DOCUMENT_BODY, BodyFormat, media_type
from baton_notifier.domain.origins import BODY, Origins
from baton_notifier.entrypoints.dag_params import Limit, Name
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity

# Where each message field came from, so an error names it so (see `Origins`). An owner names
# a document's problems by their paths in it (`steps[0].prompt`): the body's.
DOCUMENT = Origins(rest=BODY)
NAMED = Origins({"name": "path.name"})
LISTED = Origins({"limit": "query.limit", "after": "query.after"})


async def _document(request: Request, *, required: bool) -> tuple[str | None, BodyFormat]:
    """The request body as text and its format; the body gate middleware has capped its size,
    and the route class refused a body of any other media type (or none)."""
    raw = await request.body()
    fmt = DOCUMENT_BODY.format(media_type(request.headers.get("content-type"))) or "json"
    if not raw.strip():
        if required:
            raise ApiError.invalid(
                "a workflow document is required",
                [ErrorDetail(field="body", message="is empty; send the workflow JSON or YAML")],
            )
        return None, fmt
    try:
        # As every route that reads JSON (`CheckedJsonRequest`): a UTF-8 byte-order mark, which
        # some Windows editors write, is no content (kept, the owner's JSON reader refused the
        # document for it), and a body in UTF-16 or UTF-32 (a mark of theirs is no UTF-8) gets
        # the 422 the other routes give it.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problem = f"body is not valid {fmt.upper()}: it is not UTF-8 (byte {exc.start})"
        raise ApiError.invalid(
            f"request is invalid: body: {problem}", [ErrorDetail(field="body", message=problem)]
        ) from None
    if len(text) > MAX_DEFINITION_CHARS:
        raise ApiError(
            413,
            "too_large",
            f"a workflow document may have at most {MAX_DEFINITION_CHARS} characters",
            [ErrorDetail(field="body", message=f"has {len(text)} characters")],
        )
    return text, fmt


class DagWorkflowListPage(DagWorkflowList):
    """`DagWorkflowList` as HTTP answers it: `next_after` always there, `null` on the last page
    (the NATS reply leaves it off then, for a gateway older than paging)."""

    next_after: str | None = Field(
        default=None,
        description="Ask again with `?after=` this name for the next page; `null` on the last page",
    )


# Checked by `ListDagWorkflows` (`WorkflowName`), which names `query.after` in its refusal.
WorkflowsAfter = Annotated[
    str | None,
    Query(
        description="The previous page's `next_after`: only the workflows whose names sort "
        "after this one",
        examples=["research-and-summarize"],
    ),
]


async def list_workflows(
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    limit: Limit = PAGE_LIMIT,
    after: WorkflowsAfter = None,
) -> Any:
    """Your workflows at their latest versions, by name, a page at a time (`next_after`)."""
    return await forwarder.forward(
        ListDagWorkflows, identity, limit=limit, after=after, origins=LISTED
    )


async def save_workflow(
    request: Request, response: Response, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Create a workflow or store a changed document as a new version (200 when unchanged)."""
    source, fmt = await _document(request, required=True)
    reply = await forwarder.forward(
        SaveDagWorkflow, identity, source=source, format=fmt, origins=DOCUMENT
    )
    assert isinstance(reply, DagWorkflowSaved)
    response.status_code = 201 if reply.changed else 200
    return reply


async def get_workflow(name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
    """A workflow's latest version with its document."""
    return await forwarder.forward(GetDagWorkflow, identity, name=name, origins=NAMED)


async def delete_workflow(
    name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Response:
    """Remove a workflow from the list; runs already started go on with their version."""
    await forwarder.forward(DeleteDagWorkflow, identity, name=name, origins=NAMED)
    return Response(status_code=204)


async def validate_workflow(
    name: Name, request: Request, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Check the document in the body (its `name` must be `{name}`), or the stored one."""
    source, fmt = await _document(request, required=False)
    # With no document the stored one is checked, and only a name can be wrong.
    origins = NAMED if source is None else DOCUMENT
    return await forwarder.forward(
        ValidateDagWorkflow, identity, name=name, source=source, format=fmt, origins=origins
    )
