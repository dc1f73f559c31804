"""Seed 004's HTTP API for DAG workflows, at exactly its paths (`/workflows`, `/workflow-runs`).

These live beside `/api` rather than under it because the seed fixes the paths; they need the
same bearer token. A definition's body is passed on as text (JSON, or YAML with a YAML content
type), so the workflow service parses it once and names every problem with its JSON path.

The handlers live in `dag_workflows.py` (definitions), `dag_runs.py` and `dag_versions.py`,
their parameters in `dag_params.py`; this module keeps the one router and its route order.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from baton_contracts.dag_api import (
    DagRolledBack,
    DagRunAccepted,
    DagRunCancel,
    DagValidation,
    DagWorkflowDocument,
    DagWorkflowSaved,
)
from baton_notifier.domain.errors import UNAUTHORIZED_DESCRIPTION, HttpErrorResponse
from baton_notifier.entrypoints.dag_params import Limit, Name, RunId, VersionId
from baton_notifier.entrypoints.dag_runs import (
    CancelBody,
    DagRunDetailPage,
    DagRunListPage,
    RunBody,
    cancel_run,
    get_run,
    list_runs,
    run_workflow,
    workflow_runs,
)
from baton_notifier.entrypoints.dag_versions import (
    DagVersionDiffPage,
    DagVersionListPage,
    RollbackBody,
    diff,
    rollback,
    versions,
)
from baton_notifier.entrypoints.dag_workflows import (
    DagWorkflowListPage,
    delete_workflow,
    get_workflow,
    list_workflows,
    save_workflow,
    validate_workflow,
)
from baton_notifier.entrypoints.document_schema import DOCUMENT_BODY
from baton_notifier.entrypoints.json_body import CheckedJsonRoute, DocumentRoute

__all__ = [
    "CancelBody",
    "Limit",
    "Name",
    "RollbackBody",
    "RunBody",
    "RunId",
    "VersionId",
    "cancel_run",
    "dag_router",
    "delete_workflow",
    "diff",
    "get_run",
    "get_workflow",
    "list_runs",
    "list_workflows",
    "rollback",
    "run_workflow",
    "save_workflow",
    "validate_workflow",
    "versions",
    "workflow_runs",
]

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": HttpErrorResponse, "description": UNAUTHORIZED_DESCRIPTION},
    404: {"model": HttpErrorResponse, "description": "No such workflow, version or run (of yours)"},
    503: {"model": HttpErrorResponse, "description": "The workflow service did not answer"},
}
_OVERTAKEN: dict[int | str, dict[str, Any]] = {
    409: {"model": HttpErrorResponse, "description": "Other changes of it kept coming first"},
}
_INVALID: dict[int | str, dict[str, Any]] = {
    422: {
        "model": HttpErrorResponse,
        "description": "The document breaks rules; `details` lists each with its JSON path",
    },
    413: {"model": HttpErrorResponse, "description": "The document is too large"},
}


def dag_router() -> APIRouter:
    """The routes of seed 004's "Référence de l'API HTTP", plus version history and diff."""
    # No router-level token dependency: each route takes `CurrentIdentity` (see `api_router`).
    router = APIRouter(tags=["dag workflows"], route_class=CheckedJsonRoute)
    add = router.add_api_route
    add(
        "/workflows",
        list_workflows,
        methods=["GET"],
        response_model=DagWorkflowListPage,
        responses=_ERRORS,
    )
    add(
        "/workflows",
        save_workflow,
        methods=["POST"],
        response_model=DagWorkflowSaved,
        status_code=201,
        responses={
            **_ERRORS,
            **_INVALID,
            **_OVERTAKEN,
            200: {"model": DagWorkflowSaved, "description": "Unchanged: the latest version"},
        },
        openapi_extra={"requestBody": {**DOCUMENT_BODY["requestBody"], "required": True}},
        route_class_override=DocumentRoute,
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
        responses={**_ERRORS, **_OVERTAKEN},
    )
    add(
        "/workflows/{name}/validate",
        validate_workflow,
        methods=["POST"],
        response_model=DagValidation,
        responses={**_ERRORS, **_INVALID},
        openapi_extra=DOCUMENT_BODY,
        route_class_override=DocumentRoute,
    )
    add(
        "/workflows/{name}/run",
        run_workflow,
        methods=["POST"],
        response_model=DagRunAccepted,
        status_code=202,
        responses={
            **_ERRORS,
            **_INVALID,
            409: {
                "model": HttpErrorResponse,
                "description": "The Idempotency-Key started another run with other inputs",
            },
            429: {
                "model": HttpErrorResponse,
                "description": "You already have as many runs running as one user may have; "
                "nothing was started",
            },
        },
    )
    add(
        "/workflows/{name}/runs",
        workflow_runs,
        methods=["GET"],
        response_model=DagRunListPage,
        responses=_ERRORS,
    )
    add(
        "/workflows/{name}/versions",
        versions,
        methods=["GET"],
        response_model=DagVersionListPage,
        responses=_ERRORS,
    )
    add(
        "/workflows/{name}/rollback",
        rollback,
        methods=["POST"],
        response_model=DagRolledBack,
        responses={**_ERRORS, **_INVALID, **_OVERTAKEN},
    )
    add(
        "/workflow-runs",
        list_runs,
        methods=["GET"],
        response_model=DagRunListPage,
        responses=_ERRORS,
    )
    add(
        "/workflow-runs/{run_id}",
        get_run,
        methods=["GET"],
        response_model=DagRunDetailPage,
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
            422: {
                "model": HttpErrorResponse,
                "description": "A reason that is empty, blank, too long or holds a NUL (U+0000)",
            },
        },
    )
    add(
        "/workflow-versions/{from_id}/diff/{to_id}",
        diff,
        methods=["GET"],
        response_model=DagVersionDiffPage,
        response_model_by_alias=True,
        responses=_ERRORS,
    )
    return router
