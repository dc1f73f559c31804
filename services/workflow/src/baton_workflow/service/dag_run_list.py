"""A page of a user's DAG runs, newest first: at most the query's `limit` and about
`PAGE_BYTES` of JSON.

A run's `error` has no limit of its own (a cancel's reason is 500 characters, up to 6 bytes
each as JSON, and a step's error is what the step's call said): a thousand runs cancelled with
a long reason made a list of 3.4 MB, over the 1 MiB a NATS reply carries, and the list
answered 500 for good. The next page starts after `after`, the previous page's last run: the
runs started before it. The list reads its index in start order alone (no sort), so runs
started at the same instant have no order among them: a page never ends between two of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import DagRunList, DagRunSummary, ListDagRuns
from baton_contracts.workflow_api import PAGE_BYTES
from baton_workflow.service.dag_pages import cut
from baton_workflow.service.dag_ports import RunStore
from baton_workflow.service.paging import paged

LONGEST_ERROR = 64 * 1024
"""Characters of a listed run's error when the run alone is over a page: 384 KiB of JSON at
most (`GET /workflow-runs/{id}` has the rest, as far as a run's view holds)."""


async def run_page(runs: RunStore, query: ListDagRuns) -> DagRunList:
    """The page of `query`'s runs; an `after` that names no run of this list (another user's,
    another workflow's, a shadow run, an unknown id) is `invalid`, naming `after`."""
    before = None
    if query.after is not None:
        # Of the listed workflow alone: "started before" a run of another one skipped or
        # repeated runs of this list (a cursor of another list mixed in).
        before = await runs.started_at(query.user_id, query.after, query.workflow)
        if before is None:
            raise _no_place(query)
    # One run past the page tells whether more follow.
    rows = await runs.listed(query.user_id, query.workflow, query.limit + 1, before=before)
    listed = [summary(row) for row in rows]
    page = paged(listed, query.limit, _size)
    if len(page) == len(listed):
        return DagRunList(runs=page)
    page = _whole_instants(page, listed[len(page)])
    if not page:  # the whole page started at one instant: all of that instant, however many
        at = listed[0].started_at
        instant = await runs.listed(query.user_id, query.workflow, None, at=at)
        page = [summary(row) for row in instant]
    return DagRunList(runs=[_fitting(run) for run in page], next_after=page[-1].run_id)


def _no_place(query: ListDagRuns) -> RemoteError:
    """`invalid` naming `after`: not one of the runs this list (of `workflow`) holds."""
    of = "" if query.workflow is None else f" of workflow {query.workflow!r}"
    return RemoteError.of(
        ErrorCode.INVALID,
        f"run {query.after!r} not found{of}: no place in the list to go on from (ask again "
        "with the next_after of this list's previous page)",
        [ErrorDetail(field="after", message=f"no run of yours{of} with this id")],
    )


def _whole_instants(
    page: Sequence[DagRunSummary], first_left: DagRunSummary
) -> list[DagRunSummary]:
    """`page` without its last runs started at the instant the first run left out did."""
    kept = list(page)
    while kept and kept[-1].started_at == first_left.started_at:
        kept.pop()
    return kept


def _size(run: DagRunSummary) -> int:
    return len(run.model_dump_json().encode())


def _fitting(run: DagRunSummary) -> DagRunSummary:
    """`run`, with its error cut when the run alone is over a page (`paged` gives it one)."""
    if run.error is None or len(run.error) <= LONGEST_ERROR or _size(run) <= PAGE_BYTES:
        return run
    return run.model_copy(update={"error": cut(run.error, LONGEST_ERROR)})


def summary(row: Mapping[str, Any]) -> DagRunSummary:
    """A run's row as the lists show it."""
    return DagRunSummary(
        run_id=row["run_id"],
        workflow=row["workflow"],
        version=row["version"],
        version_id=f"{row['workflow']}@{row['version']}",
        mode=row["mode"],
        status=row["status"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        cost_usd=row["cost_usd"],
        error=row["error"],
    )
