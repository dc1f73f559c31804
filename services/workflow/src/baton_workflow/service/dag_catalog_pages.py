"""Pages of a user's saved DAG workflows and of a workflow's versions: at most the query's
`limit` and about `PAGE_BYTES` of JSON, as the lists of runs (`dag_run_list`) are.

A workflow's description is bounded only by its document's 524,288 characters: three of
400,000 made `GET /workflows` a reply of 1.2 MB, over the 1 MiB a NATS reply carries, and the
list answered 500 for good. The lists read in a total order (workflows by name, versions by
number), so `after`, the previous page's last item, is where the next page begins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import (
    MAX_DEFINITION_BYTES,
    DagVersion,
    DagVersionList,
    DagWorkflowDocument,
    DagWorkflowList,
    DagWorkflowSummary,
    ListDagVersions,
    ListDagWorkflows,
)
from baton_contracts.workflow_api import PAGE_BYTES
from baton_workflow.domain import dag_versions as dv
from baton_workflow.service.dag_pages import cut
from baton_workflow.service.dag_ports import DefinitionStore
from baton_workflow.service.paging import json_size, paged

LONGEST_DESCRIPTION = 64 * 1024
"""Characters of a listed workflow's description when the workflow alone is over a page: 384
KiB of JSON at most (`GET /workflows/{name}` has its document, the description whole)."""
_KIB = PAGE_BYTES // 1024
LISTED = f"a page of workflows holds about {_KIB} KiB; GET /workflows/{{name}} has it whole"
LONGEST_LINE = 4096
"""Characters of a line of a diff that is over a page: the start of a long text, enough to
see what it was."""
DIFF_NOTE = f"a diff holds about {_KIB} KiB"
READ_DESCRIPTION = 4096
"""Characters of `description` beside a document when the answer is over a page: 24 KiB of
JSON at most, so a document within `MAX_DEFINITION_BYTES` always fits the reply."""
READ = f"beside the document it holds about {_KIB} KiB; definition.description has it whole"


async def workflow_page(store: DefinitionStore, query: ListDagWorkflows) -> DagWorkflowList:
    """The page of the user's workflows whose names sort after `after` (any name: one deleted
    meanwhile still says where the list goes on)."""
    # One workflow past the page tells whether more follow.
    rows = await store.listed(query.user_id, after=query.after, limit=query.limit + 1)
    listed = [summary(row) for row in rows]
    page = paged(listed, query.limit, _size)
    if len(page) == len(listed):
        return DagWorkflowList(workflows=[_fitting(w) for w in page])
    return DagWorkflowList(workflows=[_fitting(w) for w in page], next_after=page[-1].name)


def version_page(history: dv.History, query: ListDagVersions) -> DagVersionList:
    """The page of the workflow's versions older than `after` (a version id of this
    workflow's; any other is `invalid`, naming `after`), newest first."""
    older = len(history.versions)
    if query.after is not None:
        older = _place(history, query.after)
    # One version past the page tells whether more follow.
    newest = history.versions[max(0, older - query.limit - 1) : older]
    listed = [_version(v) for v in reversed(newest)]
    page = paged(listed, query.limit, _size)
    more = len(page) < len(listed)
    return DagVersionList(
        name=query.name, versions=page, next_after=page[-1].version_id if more else None
    )


def _place(history: dv.History, after: str) -> int:
    try:  # the contract's pattern checks it first
        name, number = dv.parse_version_id(after)
    except ValueError:
        name, number = "", 0
    if name == history.name and history.get(number) is not None:
        return number - 1
    raise RemoteError.of(
        ErrorCode.INVALID,
        f"version {after!r} is not one of workflow {history.name!r}'s: no place in its history "
        "to go on from (ask again with the next_after of the previous page)",
        [ErrorDetail(field="after", message=f"no version {after!r} of {history.name!r}")],
    )


def _version(v: dv.StoredVersion) -> DagVersion:
    return DagVersion(
        version=v.version,
        version_id=v.version_id,
        created_at=v.created_at,
        action=v.action,
        rolled_back_to=v.rolled_back_to,
    )


def _size(item: DagWorkflowSummary | DagVersion) -> int:
    return len(item.model_dump_json().encode())


def _fitting(item: DagWorkflowSummary) -> DagWorkflowSummary:
    """`item`, its description cut when the workflow alone is over a page (`paged` gives it
    one)."""
    if len(item.description) <= LONGEST_DESCRIPTION or _size(item) <= PAGE_BYTES:
        return item
    description = cut(item.description, LONGEST_DESCRIPTION, LISTED)
    return item.model_copy(update={"description": description})


def document_read(read: DagWorkflowDocument) -> DagWorkflowDocument:
    """`read`, its `description` cut when that answer is over a page: the document holds the
    description too, so a long one was told twice (300,000 "é", 600 KB as JSON in a document
    well within its limits, made a reply of 1.2 MB, over what NATS carries). The document is
    never cut: it is what an author edits and saves again (`readable` keeps it within a
    reply)."""
    if len(read.description) <= READ_DESCRIPTION:
        return read
    if len(read.model_dump_json().encode()) <= PAGE_BYTES:
        return read
    return read.model_copy(update={"description": cut(read.description, READ_DESCRIPTION, READ)})


def readable(document: dict[str, Any]) -> None:
    """TOO_LARGE (naming no field: the whole document) when `document` as JSON is over
    `MAX_DEFINITION_BYTES`, which no `GET /workflows/{name}` could then carry: 524,288
    characters of escaped control characters and emoji, within the limits on characters and
    on the body, were stored as 1.19 MB, and every read of the workflow answered 500."""
    size = json_size(document)
    if size <= MAX_DEFINITION_BYTES:
        return
    problem = (
        f"is {size:,} bytes as JSON; a workflow may have at most {MAX_DEFINITION_BYTES:,}, "
        "what one answer carries back (a non-ASCII character is 2 to 4 bytes, an escaped "
        "control character such as \\e 6)"
    )
    raise RemoteError.of(
        ErrorCode.TOO_LARGE,
        f"the workflow {problem}: shorten its longest texts",
        [ErrorDetail(field=None, message=problem)],
    )


def bounded_diff(diff: str) -> tuple[str, bool]:
    """`diff`, or, when it is over about `PAGE_BYTES` as JSON, its lines cut to `LONGEST_LINE`
    characters and those past the bound left out, each place saying so; and whether it was
    shortened. A diff is read, not applied, so a shortened one beats none: two versions of
    300,000 characters of "é" apart made one of 1.2 MB, over what NATS carries (500)."""
    if json_size(diff) <= PAGE_BYTES:
        return diff, False
    lines = [_cut_line(line) for line in diff.splitlines(keepends=True)]
    kept: list[str] = []
    room = PAGE_BYTES - 1024  # for the closing note
    for line in lines:
        room -= json_size(line)
        if room < 0:
            break
        kept.append(line)
    left = len(lines) - len(kept)
    if left:
        kept.append(f"\\ {left} more lines left out: {DIFF_NOTE}; diff versions nearer together\n")
    return "".join(kept), True


def _cut_line(line: str) -> str:
    if len(line) <= LONGEST_LINE + 1:
        return line
    return cut(line.rstrip("\n"), LONGEST_LINE, DIFF_NOTE) + "\n"


def summary(row: Mapping[str, Any]) -> DagWorkflowSummary:
    """A workflow's list row as the list shows it."""
    return DagWorkflowSummary(
        name=row["name"],
        description=row["description"],
        version=row["latest_version"],
        version_id=dv.version_id(row["name"], row["latest_version"]),
        steps=row["steps"],
        updated_at=row["updated_at"],
    )
