"""Use cases for DAG workflow definitions: save (create/update), read, validate, delete, versions.

A document is checked in full before anything is stored, and every problem comes back at once
as an `invalid` error whose details carry the JSON path of each; nothing is stored then. The
check runs in a worker thread: a 500 KB document takes the pure parser a second or more, and
on the event loop every other request and run of this replica would wait for it. The steps'
agents are then checked on the event loop, where the agent-runner is asked for its profiles
(`dag_checking.check_agents`); a run start, which loads a stored version, asks nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import (
    DagRolledBack,
    DagValidation,
    DagVersionDiff,
    DagVersionList,
    DagWorkflowDeleted,
    DagWorkflowDocument,
    DagWorkflowList,
    DagWorkflowSaved,
    DeleteDagWorkflow,
    DiffDagVersions,
    GetDagWorkflow,
    ListDagVersions,
    ListDagWorkflows,
    RollbackDagWorkflow,
    SaveDagWorkflow,
    ValidateDagWorkflow,
)
from baton_eventstore import ConcurrencyConflict, StartByPassed
from baton_workflow.domain import dag_versions as dv
from baton_workflow.domain.dag.problems import InvalidWorkflow, Problem, in_document_order
from baton_workflow.service.dag_catalog_pages import (
    bounded_diff,
    document_read,
    readable,
    version_page,
    workflow_page,
)
from baton_workflow.service.dag_checking import (
    Checked,
    Checker,
    DocumentInvalid,
    Format,
    check_agents,
)
from baton_workflow.service.dag_ports import DefinitionStore, KnownAgents
from baton_workflow.service.ports import Clock
from baton_workflow.service.write_deadlines import WriteTime, not_written_in_time

log = logging.getLogger(__name__)


@dataclass
class DagCatalog:
    """What the definition use cases need, built by `bootstrap.build`."""

    store: DefinitionStore
    check: Checker
    clock: Clock
    conflict_retries: int = 5
    agents: KnownAgents | None = None
    """Where the steps' agents are checked; None: they are not (a test's catalog)."""
    writes: WriteTime = field(default_factory=WriteTime)
    """By when its requests that write must begin writing, or write nothing."""


SAVE_NOT_WRITTEN_IN_TIME = not_written_in_time("save", "nothing was saved")
DELETE_NOT_WRITTEN_IN_TIME = not_written_in_time("delete", "the workflow was not deleted")
ROLLBACK_NOT_WRITTEN_IN_TIME = not_written_in_time("rollback", "nothing was rolled back")


def invalid(problems: tuple[Problem, ...] | list[Problem], what: str) -> RemoteError:
    """The `invalid` error listing every problem with its path."""
    details = [ErrorDetail(field=p.path or None, message=p.message) for p in problems]
    count = len(details)
    summary = "; ".join(str(p) for p in problems[:5]) + ("; ..." if count > 5 else "")
    return RemoteError.of(ErrorCode.INVALID, f"{what} has {count} problem(s): {summary}", details)


def not_found(name: str, field: str = "name") -> RemoteError:
    """NOT_FOUND naming the workflow, by the request's `field` that held its name (another
    user's workflow is not found either)."""
    return RemoteError.of(
        ErrorCode.NOT_FOUND,
        f"workflow {name!r} not found",
        [ErrorDetail(field=field, message=f"no workflow {name!r}")],
    )


def busy(name: str) -> RemoteError:
    """CONFLICT when every attempt was overtaken by another change of the same workflow."""
    return RemoteError.of(
        ErrorCode.CONFLICT,
        f"workflow {name!r} is being changed by other requests at the same moment; try again",
    )


async def _changed(
    cat: DagCatalog,
    owner: str,
    name: str,
    change: Callable[[dv.History], list[dv.DefinitionEvent]],
    late: str,
    start_by: datetime | None,
) -> tuple[dv.History, list[dv.DefinitionEvent]]:
    """Append the events `change` makes of the workflow's history (it may raise), the history
    read again and `change` made again when another change came first; the history after, and
    the events. CONFLICT once every retry was overtaken; UNAVAILABLE saying `late`, nothing
    written, when an append was still waiting for the database at `start_by`.

    Behind another run's first decision (thousands of events in one write) a save waited for
    the database past the gateway's timeout, and was stored after its caller was told 503."""
    for _ in range(cat.conflict_retries + 1):
        history = await cat.store.history(owner, name)
        events = change(history)
        try:
            return await cat.store.append(owner, history, events, start_by=start_by), events
        except ConcurrencyConflict:
            continue
        except StartByPassed:
            log.warning("a change of workflow %r was not written in time; nothing written", name)
            raise RemoteError.of(ErrorCode.UNAVAILABLE, late) from None
    raise busy(name)


async def _checked(
    cat: DagCatalog, source: str | dict[str, Any], fmt: Format
) -> tuple[dict[str, Any], list[str]]:
    """The checked document (`source` as text, or a stored document, read as its JSON), parsed
    off the event loop, and the warnings: what could not be checked (the agents), then what is
    kept as written but may be a slip (a "{{" that opens no template); `invalid` listing every
    problem otherwise, the agents' among them."""

    def check() -> Checked:
        text = source if isinstance(source, str) else json.dumps(source)
        return cat.check(text, fmt)

    problems: list[Problem] = []
    warnings: list[str] = []
    try:
        document, warnings = await asyncio.to_thread(check)
    except DocumentInvalid as exc:
        document, problems = exc.document, list(exc.problems)
    except InvalidWorkflow as exc:  # not even loaded: no step to look at
        raise invalid(exc.problems, "the workflow") from None
    unknown, unchecked = await check_agents(cat.agents, document)
    if unknown:
        problems = in_document_order([*problems, *unknown])
    if problems:
        raise invalid(problems, "the workflow")
    if isinstance(source, str):  # a new write: a stored one is read as it was stored
        readable(document)
    return document, [*unchecked, *warnings]


async def list_workflows(cat: DagCatalog, query: ListDagWorkflows) -> DagWorkflowList:
    """A page of the user's listed workflows at their latest versions (`dag_catalog_pages`)."""
    return await workflow_page(cat.store, query)


async def get_workflow(cat: DagCatalog, query: GetDagWorkflow) -> DagWorkflowDocument:
    """A workflow's latest version with its whole document."""
    history = await cat.store.history(query.user_id, query.name)
    latest = history.latest
    if not history.live or latest is None:
        raise not_found(query.name)
    assert history.created_at is not None and history.updated_at is not None
    read = DagWorkflowDocument(
        name=history.name,
        description=str(latest.document.get("description") or ""),
        version=latest.version,
        version_id=latest.version_id,
        definition=latest.document,
        created_at=history.created_at,
        updated_at=history.updated_at,
    )
    return document_read(read)


async def save_workflow(cat: DagCatalog, command: SaveDagWorkflow) -> DagWorkflowSaved:
    """Store the document as a new version, or nothing when it equals the latest one."""
    # From the arrival (and the caller's deadline): the check is part of the wait.
    start_by = cat.writes.start_by(command.deadline)
    document, warnings = await _checked(cat, command.source, command.format)
    name = str(document["name"])
    after, events = await _changed(
        cat,
        command.user_id,
        name,
        lambda history: dv.save(history, document, cat.clock.now()),
        SAVE_NOT_WRITTEN_IN_TIME,
        start_by,
    )
    latest = after.latest
    assert latest is not None
    return DagWorkflowSaved(
        name=name,
        version=latest.version,
        version_id=latest.version_id,
        changed=bool(events),
        action=latest.action,
        warnings=warnings,
    )


async def validate_workflow(cat: DagCatalog, query: ValidateDagWorkflow) -> DagValidation:
    """Check the given document (whose name must match) or the stored latest version."""
    if query.source is None:
        history = await cat.store.history(query.user_id, query.name)
        latest = history.latest
        if not history.live or latest is None:
            raise not_found(query.name)
        _, warnings = await _checked(cat, latest.document, "json")
        return DagValidation(name=query.name, warnings=warnings)
    document, warnings = await _checked(cat, query.source, query.format)
    if document.get("name") != query.name:
        raise invalid(
            [Problem("name", f"is {document.get('name')!r} but the URL names {query.name!r}")],
            "the workflow",
        )
    return DagValidation(name=query.name, warnings=warnings)


async def delete_workflow(cat: DagCatalog, command: DeleteDagWorkflow) -> DagWorkflowDeleted:
    """Hide the workflow from the list; its versions and runs stay."""
    start_by = cat.writes.start_by(command.deadline)

    def delete(history: dv.History) -> list[dv.DefinitionEvent]:
        if not history.live:
            raise not_found(command.name)
        return dv.delete(history, cat.clock.now())

    await _changed(cat, command.user_id, command.name, delete, DELETE_NOT_WRITTEN_IN_TIME, start_by)
    return DagWorkflowDeleted(name=command.name)


async def list_versions(cat: DagCatalog, query: ListDagVersions) -> DagVersionList:
    """A page of the versions, newest first (a deleted workflow's history is still shown;
    `dag_catalog_pages`)."""
    history = await cat.store.history(query.user_id, query.name)
    if not history.versions:
        raise not_found(query.name)
    return version_page(history, query)


async def rollback_workflow(cat: DagCatalog, command: RollbackDagWorkflow) -> DagRolledBack:
    """A new version whose document is an earlier version's."""
    start_by = cat.writes.start_by(command.deadline)
    target_name, target = _parse_version_id(command.version_id, "version_id")
    if target_name != command.name:
        raise invalid(
            [Problem("version_id", f"names workflow {target_name!r}, not {command.name!r}")],
            "the rollback",
        )

    def rollback(history: dv.History) -> list[dv.DefinitionEvent]:
        if not history.versions:
            raise not_found(command.name)
        try:
            return dv.rollback(history, target, cat.clock.now())
        except dv.VersionNotFound:
            raise _version_not_found(command.version_id, history) from None

    after, _ = await _changed(
        cat, command.user_id, command.name, rollback, ROLLBACK_NOT_WRITTEN_IN_TIME, start_by
    )
    latest = after.latest
    assert latest is not None
    return DagRolledBack(
        name=command.name,
        version=latest.version,
        version_id=latest.version_id,
        rolled_back_to=latest.rolled_back_to or command.version_id,  # as the history says it
    )


async def diff_versions(cat: DagCatalog, query: DiffDagVersions) -> DagVersionDiff:
    """A unified diff of two versions' documents, shortened past about `PAGE_BYTES`."""
    old = await _version(cat, query.user_id, query.from_version, "from_version")
    new = await _version(cat, query.user_id, query.to_version, "to_version")
    diff, shortened = bounded_diff(dv.unified_diff(old, new))
    return DagVersionDiff(
        from_version=old.version_id, to_version=new.version_id, diff=diff, shortened=shortened
    )


def _parse_version_id(value: str, field: str) -> tuple[str, int]:
    """(name, version), or `invalid` naming the field (the contract's pattern checks it first;
    this keeps a malformed id a 422, never a 500, should the two ever disagree)."""
    try:
        return dv.parse_version_id(value)
    except ValueError as exc:
        raise invalid([Problem(field, str(exc))], f"the version id {value!r}") from None


async def _version(cat: DagCatalog, owner: str, value: str, field: str) -> dv.StoredVersion:
    name, number = _parse_version_id(value, field)
    history = await cat.store.history(owner, name)
    stored = history.get(number)
    if stored is None:
        raise _version_not_found(value, history, field)
    return stored


def _version_not_found(value: str, history: dv.History, field: str = "version_id") -> RemoteError:
    known = ", ".join(v.version_id for v in history.versions[-5:]) or "none"
    return RemoteError.of(
        ErrorCode.NOT_FOUND,
        f"version {value!r} not found (latest versions: {known})",
        [ErrorDetail(field=field, message=f"no version {value!r}")],
    )
