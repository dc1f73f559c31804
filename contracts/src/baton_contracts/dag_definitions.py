"""The DAG workflow definitions: listing, reading, saving, validating and deleting a user's
stored workflows, with the replies to each.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from baton_contracts.base import Command, Query, ReplyModel, Subject
from baton_contracts.dag_base import (
    MAX_DEFINITION_CHARS,
    VersionAction,
    WriteDeadline,
)
from baton_contracts.ids import WorkflowName
from baton_contracts.workflow_api import PAGE_LIMIT
from baton_contracts.workflow_base import Reply, cmd, query

# --- replies -----------------------------------------------------------------------------


class DagWorkflowSummary(Reply):
    """One stored workflow, at its latest version."""

    name: str
    description: str = ""
    version: int = Field(ge=1)
    version_id: str
    steps: int = Field(ge=0)
    updated_at: datetime


class DagWorkflowList(Reply):
    """One page of a user's workflows, by name: at most the query's `limit` and about
    `PAGE_BYTES` of JSON (a description is bounded only by the document's 524,288 characters:
    three of 400,000 made a list over the 1 MiB a NATS reply carries)."""

    workflows: list[DagWorkflowSummary]
    # Left off the wire on the last page: a gateway older than paging refuses unknown fields.
    next_after: str | None = Field(default=None, exclude_if=lambda after: after is None)
    """Set when more workflows follow: ask again with it as `after`."""


class DagWorkflowDocument(Reply):
    """A workflow's latest version with its whole document."""

    name: str
    description: str = ""
    version: int = Field(ge=1)
    version_id: str
    definition: dict[str, object]
    created_at: datetime
    updated_at: datetime


class DagWorkflowSaved(Reply):
    """What `create` stored: a new version, or nothing when the document did not change."""

    name: str
    version: int = Field(ge=1)
    version_id: str
    changed: bool
    action: VersionAction | None = None
    """How that version was made (`create` also after a delete, where numbering goes on);
    None from a workflow service older than this field."""
    # Left off the wire when empty: a gateway older than this field refuses unknown ones
    # (`extra="forbid"`), and keeps reading every save that has none.
    warnings: list[str] = Field(default_factory=list, exclude_if=lambda warnings: not warnings)
    """What was saved unchecked: the steps' agents when the agent-runner did not answer
    (their runs still fail on an agent with no profile); and what was saved as written but may
    be a slip: a field whose "{{" opens no template (it is kept as text), the first 20 of them
    and then how many more."""


class DagWorkflowDeleted(Reply):
    """The workflow is gone from the list; its versions and runs are kept."""

    name: str
    deleted: bool = True


class DagValidation(Reply):
    """A document that passed every rule (a failing one is an `invalid` error instead)."""

    valid: Literal[True] = True
    name: str
    problems: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list, exclude_if=lambda warnings: not warnings)
    """As on `DagWorkflowSaved`, left off the wire when empty."""


# --- requests ----------------------------------------------------------------------------


class ListDagWorkflows(Query):
    """The user's stored workflows."""

    type: Literal["workflow.dag.list"] = "workflow.dag.list"
    subject: ClassVar[Subject] = query("dag_list")
    reply_model: ClassVar[ReplyModel] = DagWorkflowList
    user_id: str
    # Both left off the wire at their defaults: a workflow service older than paging refuses
    # unknown fields (`extra="forbid"`), and answers the first page, every workflow, as before.
    after: WorkflowName | None = Field(default=None, exclude_if=lambda after: after is None)
    """Only the workflows whose names sort after this one (the previous page's `next_after`)."""
    limit: int = Field(
        default=PAGE_LIMIT, ge=1, le=PAGE_LIMIT, exclude_if=lambda limit: limit == PAGE_LIMIT
    )


class GetDagWorkflow(Query):
    """One workflow's latest version."""

    type: Literal["workflow.dag.get"] = "workflow.dag.get"
    subject: ClassVar[Subject] = query("dag_get")
    reply_model: ClassVar[ReplyModel] = DagWorkflowDocument
    user_id: str
    name: WorkflowName


class SaveDagWorkflow(Command):
    """Create a workflow, or store a new version of it (`create` in the seed's CLI)."""

    type: Literal["workflow.dag.save"] = "workflow.dag.save"
    subject: ClassVar[Subject] = cmd("dag_save")
    reply_model: ClassVar[ReplyModel] = DagWorkflowSaved
    source: str = Field(min_length=1, max_length=MAX_DEFINITION_CHARS)
    format: Literal["json", "yaml"] = "json"
    deadline: WriteDeadline = None


class ValidateDagWorkflow(Query):
    """Check a document (when `source` is given) or the stored one; stores nothing."""

    type: Literal["workflow.dag.validate"] = "workflow.dag.validate"
    subject: ClassVar[Subject] = query("dag_validate")
    reply_model: ClassVar[ReplyModel] = DagValidation
    user_id: str
    name: WorkflowName
    source: str | None = Field(default=None, min_length=1, max_length=MAX_DEFINITION_CHARS)
    format: Literal["json", "yaml"] = "json"


class DeleteDagWorkflow(Command):
    """Remove a workflow from the list; started runs go on with their pinned version."""

    type: Literal["workflow.dag.delete"] = "workflow.dag.delete"
    subject: ClassVar[Subject] = cmd("dag_delete")
    reply_model: ClassVar[ReplyModel] = DagWorkflowDeleted
    name: WorkflowName
    deadline: WriteDeadline = None
