"""Seed 004's HTTP API for DAG workflows, at exactly its paths (`/workflows`, `/workflow-runs`).

These live beside `/api` rather than under it because the seed fixes the paths; they need the
same bearer token. A definition's body is passed on as text (JSON, or YAML with a YAML content
type), so the workflow service parses it once and names every problem with its JSON path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from baton_contracts.base import ErrorDetail
from baton_contracts.dag_api import (
    DEFAULT_CANCEL_REASON,
    MAX_DEFINITION_CHARS,
    VERSION_ID_PATTERN,
    WORKFLOW_NAME_PATTERN,
    CancelDagRun,
    DagRolledBack,
    DagRunAccepted,
    DagRunCancel,
    DagRunDetail,
    DagRunList,
    DagValidation,
    DagVersionDiff,
    DagVersionList,
    DagWorkflowDocument,
    DagWorkflowList,
    DagWorkflowSaved,
    DeleteDagWorkflow,
    DiffDagVersions,
    GetDagRun,
    GetDagWorkflow,
    ListDagRuns,
    ListDagVersions,
    ListDagWorkflows,
    RollbackDagWorkflow,
    RunMode,
    SaveDagWorkflow,
    StartDagRun,
    ValidateDagWorkflow,
)
from baton_notifier.domain.errors import ApiError, HttpErrorResponse
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity

Name = Annotated[str, Path(pattern=WORKFLOW_NAME_PATTERN, description="The workflow's name")]
VersionId = Annotated[str, Path(pattern=VERSION_ID_PATTERN, examples=["my-workflow@2"])]
RunId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Limit = Annotated[int, Query(ge=1, le=1000)]

YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": HttpErrorResponse, "description": "No valid bearer token"},
    404: {"model": HttpErrorResponse, "description": "No such workflow, version or run (of yours)"},
    503: {"model": HttpErrorResponse, "description": "The workflow service did not answer"},
}
_INVALID: dict[int | str, dict[str, Any]] = {
    422: {
        "model": HttpErrorResponse,
        "description": "The document breaks rules; `details` lists each with its JSON path",
    },
    413: {"model": HttpErrorResponse, "description": "The document is too large"},
}


class RunBody(BaseModel):
    """`POST /workflows/{name}/run`: variable overrides and the execution mode."""

    model_config = ConfigDict(extra="forbid")

    variables: dict[str, str] = Field(default_factory=dict, examples=[{"topic": "AI agents"}])
    mode: RunMode = Field(default="live", description="live, dry_run (no calls) or shadow")


class CancelBody(BaseModel):
    """`POST /workflow-runs/{run_id}/cancel`: why (kept in the run's log and its error)."""

    model_config = ConfigDict(extra="forbid")

    reason: str = Field(
        default=DEFAULT_CANCEL_REASON, min_length=1, max_length=500, examples=["wrong topic"]
    )


class RollbackBody(BaseModel):
    """`POST /workflows/{name}/rollback`: the version whose document becomes the newest."""

    model_config = ConfigDict(extra="forbid")

    version_id: str = Field(
        description="`<name>@<version>`, or the bare version number", examples=["my-workflow@2"]
    )

    @field_validator("version_id")
    @classmethod
    def _not_version_zero(cls, value: str) -> str:
        number = value.rpartition("@")[2]
        if number.isdigit() and int(number) == 0:
            raise ValueError(f"versions start at 1 (got {value!r})")
        return value


def dag_router() -> APIRouter:
    """The routes of seed 004's "Référence de l'API HTTP", plus version history and diff."""
    # No router-level token dependency: each route takes `CurrentIdentity` (see `api_router`).
    router = APIRouter(tags=["dag workflows"])
    add = router.add_api_route
    add(
        "/workflows",
        list_workflows,
        methods=["GET"],
        response_model=DagWorkflowList,
        responses=_ERRORS,
    )
    add(
        "/workflows",
        save_workflow,
        methods=["POST"],
        response_model=DagWorkflowSaved,
        status_code=201,
        responses={**_ERRORS, **_INVALID},
        openapi_extra=_DOCUMENT_BODY,
    )
    add(
        "/workflows/{name}",
        get_workflow,
        methods=["GET"],
        response_model=DagWorkflowDocument,
        responses=_ERRORS,
    )
    add(
        "/workflows/{name}",
        delete_workflow,
        methods=["DELETE"],
        status_code=204,
        response_class=Response,
        responses=_ERRORS,
    )
    add(
        "/workflows/{name}/validate",
        validate_workflow,
        methods=["POST"],
        response_model=DagValidation,
        responses={**_ERRORS, **_INVALID},
        openapi_extra=_DOCUMENT_BODY,
    )
    add(
        "/workflows/{name}/run",
        run_workflow,
        methods=["POST"],
        response_model=DagRunAccepted,
        status_code=202,
        responses={**_ERRORS, **_INVALID},
    )
    add(
        "/workflows/{name}/runs",
        workflow_runs,
        methods=["GET"],
        response_model=DagRunList,
        responses=_ERRORS,
    )
    add(
        "/workflows/{name}/versions",
        versions,
        methods=["GET"],
        response_model=DagVersionList,
        responses=_ERRORS,
    )
    add(
        "/workflows/{name}/rollback",
        rollback,
        methods=["POST"],
        response_model=DagRolledBack,
        responses={**_ERRORS, **_INVALID},
    )
    add("/workflow-runs", list_runs, methods=["GET"], response_model=DagRunList, responses=_ERRORS)
    add(
        "/workflow-runs/{run_id}",
        get_run,
        methods=["GET"],
        response_model=DagRunDetail,
        response_model_by_alias=True,
        responses=_ERRORS,
    )
    add(
        "/workflow-runs/{run_id}/cancel",
        cancel_run,
        methods=["POST"],
        response_model=DagRunCancel,
        status_code=202,
        responses={
            **_ERRORS,
            200: {"model": DagRunCancel, "description": "The run had already been cancelled"},
            409: {"model": HttpErrorResponse, "description": "The run has already ended"},
            422: {"model": HttpErrorResponse, "description": "A reason that is empty or too long"},
        },
    )
    add(
        "/workflow-versions/{from_id}/diff/{to_id}",
        diff,
        methods=["GET"],
        response_model=DagVersionDiff,
        response_model_by_alias=True,
        responses=_ERRORS,
    )
    return router


_DOCUMENT_BODY: dict[str, Any] = {
    "requestBody": {
        "description": "The workflow document (seed 004's JSON; YAML with a YAML content type)",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/yaml": {"schema": {"type": "string"}},
        },
    }
}


async def _document(
    request: Request, *, required: bool
) -> tuple[str | None, Literal["json", "yaml"]]:
    """The request body as text and its format; the body limit middleware has capped its size."""
    raw = await request.body()
    content_type = request.headers.get("content-type", "application/json").split(";")[0].strip()
    fmt: Literal["json", "yaml"] = "yaml" if content_type.lower() in YAML_TYPES else "json"
    if not raw.strip():
        if required:
            raise ApiError.invalid(
                "a workflow document is required",
                [ErrorDetail(field="body", message="is empty; send the workflow JSON or YAML")],
            )
        return None, fmt
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError.invalid(
            "the body is not UTF-8", [ErrorDetail(field="body", message=str(exc))]
        ) from None
    if len(text) > MAX_DEFINITION_CHARS:
        raise ApiError(
            413,
            "too_large",
            f"a workflow document may have at most {MAX_DEFINITION_CHARS} characters",
            [ErrorDetail(field="body", message=f"has {len(text)} characters")],
        )
    return text, fmt


async def list_workflows(identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
    """Your workflows at their latest versions."""
    return await forwarder.forward(ListDagWorkflows, identity)


async def save_workflow(
    request: Request, response: Response, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Create a workflow or store a changed document as a new version (200 when unchanged)."""
    source, fmt = await _document(request, required=True)
    reply = await forwarder.forward(SaveDagWorkflow, identity, source=source, format=fmt)
    assert isinstance(reply, DagWorkflowSaved)
    response.status_code = 201 if reply.changed else 200
    return reply


async def get_workflow(name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
    """A workflow's latest version with its document."""
    return await forwarder.forward(GetDagWorkflow, identity, name=name)


async def delete_workflow(
    name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Response:
    """Remove a workflow from the list; runs already started go on with their version."""
    await forwarder.forward(DeleteDagWorkflow, identity, name=name)
    return Response(status_code=204)


async def validate_workflow(
    name: Name, request: Request, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Check the document in the body (its `name` must be `{name}`), or the stored one."""
    source, fmt = await _document(request, required=False)
    return await forwarder.forward(
        ValidateDagWorkflow, identity, name=name, source=source, format=fmt
    )


async def run_workflow(
    name: Name,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    response: Response,
    body: RunBody | None = None,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> Any:
    """Start a run of the latest version: 202 with its id; it goes on in the background."""
    body = body or RunBody()
    reply = await forwarder.forward(
        StartDagRun,
        identity,
        name=name,
        variables=body.variables,
        mode=body.mode,
        request_id=idempotency_key,
    )
    assert isinstance(reply, DagRunAccepted)
    response.headers["Location"] = f"/workflow-runs/{reply.run_id}"
    return reply


async def workflow_runs(
    name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder, limit: Limit = 50
) -> Any:
    """A workflow's runs, newest first."""
    return await forwarder.forward(ListDagRuns, identity, workflow=name, limit=limit)


async def list_runs(
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    workflow: Annotated[str | None, Query(pattern=WORKFLOW_NAME_PATTERN)] = None,
    limit: Limit = 50,
) -> Any:
    """Your runs, newest first; `?workflow=name` keeps one workflow's."""
    return await forwarder.forward(ListDagRuns, identity, workflow=workflow, limit=limit)


async def get_run(run_id: RunId, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
    """A run with every step, the handoffs and the agent messages."""
    return await forwarder.forward(GetDagRun, identity, run_id=run_id)


async def cancel_run(
    run_id: RunId,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    response: Response,
    body: CancelBody | None = None,
) -> Any:
    """Cancel a running run: 202 once recorded (it then ends `cancelled`, its calls in flight
    cancelled), 200 when it already was, 409 when it has ended some other way."""
    reason = (body or CancelBody()).reason
    reply = await forwarder.forward(CancelDagRun, identity, run_id=run_id, reason=reason)
    assert isinstance(reply, DagRunCancel)
    if not reply.recorded:
        response.status_code = 200
    return reply


async def versions(name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
    """A workflow's versions, newest first."""
    return await forwarder.forward(ListDagVersions, identity, name=name)


async def rollback(
    name: Name, body: RollbackBody, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Store a new version with an earlier version's document."""
    version_id = body.version_id
    if version_id.isdigit():
        version_id = f"{name}@{version_id}"
    return await forwarder.forward(RollbackDagWorkflow, identity, name=name, version_id=version_id)


async def diff(
    from_id: VersionId, to_id: VersionId, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """A unified diff of two versions' documents."""
    return await forwarder.forward(
        DiffDagVersions, identity, from_version=from_id, to_version=to_id
    )
