"""The DAG workflow versions: a workflow's version history, rolling back to an earlier version,
and the diff of two versions, with the replies to each.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import ConfigDict, Field

from baton_contracts.base import Command, Query, ReplyModel, Subject
from baton_contracts.dag_base import VersionAction, WriteDeadline
from baton_contracts.ids import VersionId, WorkflowName
from baton_contracts.workflow_api import PAGE_LIMIT
from baton_contracts.workflow_base import Reply, cmd, query

# --- replies -----------------------------------------------------------------------------


class DagVersion(Reply):
    """One stored version of a workflow."""

    version: int = Field(ge=1)
    version_id: str
    created_at: datetime
    action: VersionAction
    rolled_back_to: str | None = None


class DagVersionList(Reply):
    """One page of a workflow's versions, newest first: at most the query's `limit` and about
    `PAGE_BYTES` of JSON (a workflow has no bound on its number of versions: 3,000 rollbacks
    made a history over the 1 MiB a NATS reply carries)."""

    name: str
    versions: list[DagVersion]
    # Left off the wire on the last page: a gateway older than paging refuses unknown fields.
    next_after: str | None = Field(default=None, exclude_if=lambda after: after is None)
    """Set when more (older) versions follow: ask again with it as `after`."""


class DagRolledBack(Reply):
    """The new version a rollback made."""

    name: str
    version: int
    version_id: str
    rolled_back_to: str


class DagVersionDiff(Reply):
    """A unified diff of two versions' pretty-printed JSON documents: about `PAGE_BYTES` of
    JSON at most (two documents of 524,288 characters made a diff over the 1 MiB a NATS
    reply carries)."""

    from_version: str = Field(serialization_alias="from", validation_alias="from")
    to_version: str = Field(serialization_alias="to", validation_alias="to")
    diff: str
    # Left off the wire when False: a gateway older than this field refuses unknown ones, and
    # reads every diff that was not shortened.
    shortened: bool = Field(default=False, exclude_if=lambda shortened: not shortened)
    """True when the diff was over about `PAGE_BYTES`: its long lines are cut and the lines
    past the bound left out, each place saying so in `diff`."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# --- requests ----------------------------------------------------------------------------


class ListDagVersions(Query):
    """A workflow's version history, newest first."""

    type: Literal["workflow.dag.versions"] = "workflow.dag.versions"
    subject: ClassVar[Subject] = query("dag_versions")
    reply_model: ClassVar[ReplyModel] = DagVersionList
    user_id: str
    name: WorkflowName
    # Both left off the wire at their defaults: a workflow service older than paging refuses
    # unknown fields (`extra="forbid"`), and answers the first page, every version, as before.
    after: VersionId | None = Field(default=None, exclude_if=lambda after: after is None)
    """Only the versions older than this one of the workflow (the previous page's
    `next_after`)."""
    limit: int = Field(
        default=PAGE_LIMIT, ge=1, le=PAGE_LIMIT, exclude_if=lambda limit: limit == PAGE_LIMIT
    )


class RollbackDagWorkflow(Command):
    """Store a new version whose document is that of an earlier one."""

    type: Literal["workflow.dag.rollback"] = "workflow.dag.rollback"
    subject: ClassVar[Subject] = cmd("dag_rollback")
    reply_model: ClassVar[ReplyModel] = DagRolledBack
    name: WorkflowName
    version_id: VersionId
    deadline: WriteDeadline = None


class DiffDagVersions(Query):
    """A unified diff between two versions (of one workflow or of two)."""

    type: Literal["workflow.dag.diff"] = "workflow.dag.diff"
    subject: ClassVar[Subject] = query("dag_diff")
    reply_model: ClassVar[ReplyModel] = DagVersionDiff
    user_id: str
    from_version: VersionId
    to_version: VersionId
