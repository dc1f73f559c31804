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
    """A workflow's versions, newest first."""

    name: str
    versions: list[DagVersion]


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
