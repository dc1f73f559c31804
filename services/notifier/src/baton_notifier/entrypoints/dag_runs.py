"""DAG workflow runs: start one, list them, read one, cancel one.

`POST /workflows/{name}/run` and `GET /workflows/{name}/runs` live here with the
`/workflow-runs` routes because they speak of runs, not of the stored definition.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from baton_contracts import ErrorDetail
from baton_contracts.dag_api import (
    DEFAULT_CANCEL_REASON,
    DETAIL_STEPS_LIMIT,
    CancelDagRun,
    DagRunAccepted,
    DagRunCancel,
    DagRunDetail,
    DagRunList,
    GetDagRun,
    ListDagRuns,
    RunMode,
    StartDagRun,
)
from baton_contracts.ids import WorkflowName
from baton_contracts.storable import NulFreeInSchema
from baton_notifier.domain.errors import ApiError
from baton_notifier.domain.origins import IDEMPOTENCY_KEY, Origins
from baton_notifier.entrypoints.dag_params import Limit, Name, RunId
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity
from baton_notifier.entrypoints.idempotency import RunKey, one_key
from baton_notifier.entrypoints.query_numbers import WholeNumber

# Where each message field came from, so an error names it so (see `Origins`).
START = Origins(
    {
        "name": "path.name",
        "variables": "body.variables",
        "mode": "body.mode",
        "request_id": IDEMPOTENCY_KEY,
    }
)
RUNS_OF_NAME = Origins({"workflow": "path.name", "limit": "query.limit", "after": "query.after"})
RUNS = Origins({"workflow": "query.workflow", "limit": "query.limit", "after": "query.after"})
RUN = Origins({"run_id": "path.run_id", "steps_after": "query.steps_after", "limit": "query.limit"})
CANCEL = Origins({"run_id": "path.run_id", "reason": "body.reason"})


class RunBody(BaseModel):
    """`POST /workflows/{name}/run`: variable overrides and the execution mode."""

    model_config = ConfigDict(extra="forbid")

    # No NUL in a value: the run's `variables` refuse one (`NulFreeText`), naming its path.
    variables: dict[str, Annotated[str, NulFreeInSchema]] = Field(
        default_factory=dict,
        description="Values for variables the workflow declares, no NUL (U+0000) in any; "
        "which it declares is its own, so a name it does not is refused by the workflow "
        "service (422 naming `body.variables.<name>`)",
        examples=[{"topic": "AI agents"}],
    )
    mode: RunMode = Field(default="live", description="live, dry_run (no calls) or shadow")


class CancelBody(BaseModel):
    """`POST /workflow-runs/{run_id}/cancel`: why (kept in the run's log and its error)."""

    model_config = ConfigDict(extra="forbid")

    # No NUL, not blank: `CancelDagRun.reason` refuses either (`NonBlankText`), naming
    # `body.reason`.
    reason: Annotated[str, NulFreeInSchema] = Field(
        default=DEFAULT_CANCEL_REASON,
        min_length=1,
        max_length=500,
        description="Kept in the run's log and its error; not blank (white space alone)",
        examples=["wrong topic"],
    )


NULL_BODY = "must be a JSON object, not null; send {} or no body at all for the defaults"


async def refuse_null(request: Request, body: BaseModel | None) -> None:
    """422 naming `body` when the body sent was JSON `null`: FastAPI hands an optional body
    None for it, as for no body, and the run started (or was cancelled) with the defaults,
    while every route whose body is required refused `null` as not an object."""
    if body is None and await request.body():
        raise ApiError.invalid(
            f"request is invalid: body: {NULL_BODY}", [ErrorDetail(field="body", message=NULL_BODY)]
        )


async def run_workflow(
    name: Name,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    response: Response,
    request: Request,
    body: RunBody | None = None,
    idempotency_key: RunKey = None,
) -> Any:
    """Start a run of the latest version: 202 with its id; it goes on in the background."""
    await refuse_null(request, body)
    if idempotency_key is not None:
        one_key(request, idempotency_key)
    body = body or RunBody()
    reply = await forwarder.forward(
        StartDagRun,
        identity,
        name=name,
        variables=body.variables,
        mode=body.mode,
        request_id=idempotency_key,
        origins=START,
    )
    assert isinstance(reply, DagRunAccepted)
    response.headers["Location"] = f"/workflow-runs/{reply.run_id}"
    return reply


class DagRunListPage(DagRunList):
    """`DagRunList` as HTTP answers it: `next_after` always there, `null` on the last page
    (the NATS reply leaves it off then, for a gateway older than paging)."""

    next_after: str | None = Field(
        default=None,
        description="Ask again with `?after=` this run id for the next page; `null` on the "
        "last page",
    )


# Checked by `ListDagRuns` (`RunId`), which names `query.after` in its refusal.
RunsAfter = Annotated[
    str | None,
    Query(
        description="The previous page's `next_after`: only the runs listed after that one",
        examples=["a1b2c3d4e5f60718293a4b5c6d7e8f90"],
    ),
]


async def workflow_runs(
    name: Name,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    limit: Limit = 50,
    after: RunsAfter = None,
) -> Any:
    """A workflow's runs, newest first, a page at a time (`next_after`)."""
    return await forwarder.forward(
        ListDagRuns, identity, workflow=name, limit=limit, after=after, origins=RUNS_OF_NAME
    )


async def list_runs(
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    workflow: Annotated[WorkflowName | None, Query()] = None,
    limit: Limit = 50,
    after: RunsAfter = None,
) -> Any:
    """Your runs, newest first, a page at a time (`next_after`); `?workflow=name` keeps one
    workflow's."""
    return await forwarder.forward(
        ListDagRuns, identity, workflow=workflow, limit=limit, after=after, origins=RUNS
    )


class DagRunDetailPage(DagRunDetail):
    """`DagRunDetail` as HTTP answers it: `more_steps` and `next_steps_after` always there,
    `0` and `null` on the last page (the NATS reply leaves them off then, for a gateway older
    than paging)."""

    more_steps: int = Field(default=0, ge=0, description="Steps after this page, not listed")
    next_steps_after: str | None = Field(
        default=None,
        description="Ask again with `?steps_after=` this step id for the next page; "
        "`null` on the last page",
    )


StepsAfter = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=128,
        description="List the steps declared after this step id (a page's `next_steps_after`)",
    ),
]
StepsLimit = Annotated[
    WholeNumber | None,
    Query(
        ge=1, le=DETAIL_STEPS_LIMIT, description="At most this many steps (default: all that fit)"
    ),
]


async def get_run(
    run_id: RunId,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    steps_after: StepsAfter = None,
    limit: StepsLimit = None,
) -> Any:
    """A run with its steps (a page of them when they do not all fit: `next_steps_after`),
    their handoffs and their agent messages."""
    return await forwarder.forward(
        GetDagRun, identity, run_id=run_id, steps_after=steps_after, limit=limit, origins=RUN
    )


async def cancel_run(
    run_id: RunId,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    response: Response,
    request: Request,
    body: CancelBody | None = None,
) -> Any:
    """Cancel a running run: 202 once recorded (it then ends `cancelled`, its calls in flight
    cancelled), 200 when it already was, 409 when it has ended some other way."""
    await refuse_null(request, body)
    reason = (body or CancelBody()).reason
    reply = await forwarder.forward(
        CancelDagRun, identity, run_id=run_id, reason=reason, origins=CANCEL
    )
    assert isinstance(reply, DagRunCancel)
    if not reply.recorded:
        response.status_code = 200
    return reply
