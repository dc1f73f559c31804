"""Requests the workflow service answers about DAG workflows (seed 004): definitions, runs.

Every request names the `user_id` it acts for; a user sees only their own definitions and runs,
and another user's name or run id is `not_found`. Validation problems come back as an
`invalid` error whose details carry the JSON path of each problem
(`steps[2].dependsOn[0]: unknown step "reserch"`), all of them at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from baton_contracts.base import Broadcast, Command, Kind, Query, ReplyModel, Subject

MAX_DEFINITION_CHARS = 512 * 1024
"""The largest workflow document accepted, in characters of its JSON or YAML source."""

MAX_WORKFLOW_NAME_CHARS = 128
"""The longest workflow name: routes, messages, tables and the definition validator agree."""

WORKFLOW_NAME_PATTERN = rf"^[A-Za-z0-9_-]{{1,{MAX_WORKFLOW_NAME_CHARS}}}$"
"""Seed 004: alphanumeric, `-` and `_` only."""

VERSION_ID_PATTERN = rf"^[A-Za-z0-9_-]{{1,{MAX_WORKFLOW_NAME_CHARS}}}@0*[1-9][0-9]{{0,8}}$"
"""A version id is `<name>@<version>`, unique across a user's workflows; versions start at 1."""

RunMode = Literal["live", "dry_run", "shadow"]
RunStatus = Literal["running", "success", "error", "timeout", "cancelled"]
StepStatus = Literal["pending", "running", "waiting", "success", "error", "skipped", "timeout"]
VersionAction = Literal["create", "update", "rollback"]


class _Reply(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _cmd(name: str) -> Subject:
    return Subject(owner="workflow", kind=Kind.CMD, name=name)


def _query(name: str) -> Subject:
    return Subject(owner="workflow", kind=Kind.QUERY, name=name)


# --- replies -----------------------------------------------------------------------------


class DagWorkflowSummary(_Reply):
    """One stored workflow, at its latest version."""

    name: str
    description: str = ""
    version: int = Field(ge=1)
    version_id: str
    steps: int = Field(ge=0)
    updated_at: datetime


class DagWorkflowList(_Reply):
    """A user's workflows, by name."""

    workflows: list[DagWorkflowSummary]


class DagWorkflowDocument(_Reply):
    """A workflow's latest version with its whole document."""

    name: str
    description: str = ""
    version: int = Field(ge=1)
    version_id: str
    definition: dict[str, object]
    created_at: datetime
    updated_at: datetime


class DagWorkflowSaved(_Reply):
    """What `create` stored: a new version, or nothing when the document did not change."""

    name: str
    version: int = Field(ge=1)
    version_id: str
    changed: bool
    action: VersionAction | None = None
    """How that version was made (`create` also after a delete, where numbering goes on);
    None from a workflow service older than this field."""


class DagWorkflowDeleted(_Reply):
    """The workflow is gone from the list; its versions and runs are kept."""

    name: str
    deleted: bool = True


class DagValidation(_Reply):
    """A document that passed every rule (a failing one is an `invalid` error instead)."""

    valid: Literal[True] = True
    name: str
    problems: list[str] = Field(default_factory=list)


class DagRunAccepted(_Reply):
    """A run was started (or found again by its idempotency key)."""

    run_id: str
    workflow: str
    version: int
    version_id: str
    mode: RunMode
    status: RunStatus


class DagRunSummary(_Reply):
    """One run as the run lists show it."""

    run_id: str
    workflow: str
    version: int
    version_id: str
    mode: RunMode
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None = None
    cost_usd: float = 0.0
    error: str | None = None


class DagRunList(_Reply):
    """Runs, newest first."""

    runs: list[DagRunSummary]


class DagRunCancel(_Reply):
    """What a cancel request found: `recorded` when this request asked for it (the run then
    ends as `cancelled` once its in-flight calls are cancelled), False when it already had."""

    run_id: str
    status: RunStatus
    reason: str
    recorded: bool


class DagStepView(_Reply):
    """One step of a run (parallel sub-steps are listed as steps of their own)."""

    id: str
    type: str
    status: StepStatus
    attempts: int = 0
    output: str = ""
    error: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    agent: str | None = None
    parent: str | None = None


class DagHandoff(_Reply):
    """A handoff step gave one step's whole output to an agent."""

    from_step: str = Field(serialization_alias="from", validation_alias="from")
    to_step: str = Field(serialization_alias="to", validation_alias="to")
    agent: str
    at: datetime | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class DagAgentMessage(_Reply):
    """A prompt sent to an agent, or its answer."""

    step: str
    agent: str
    role: Literal["user", "assistant"]
    text: str
    at: datetime


class DagEstimate(_Reply):
    """A dry run's estimate for the whole run."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class DagRunDetail(DagRunSummary):
    """A run with its steps, handoffs and agent messages."""

    variables: dict[str, str] = Field(default_factory=dict)
    steps: list[DagStepView] = Field(default_factory=list)
    handoffs: list[DagHandoff] = Field(default_factory=list)
    messages: list[DagAgentMessage] = Field(default_factory=list)
    estimate: DagEstimate | None = None


class DagVersion(_Reply):
    """One stored version of a workflow."""

    version: int = Field(ge=1)
    version_id: str
    created_at: datetime
    action: VersionAction
    rolled_back_to: str | None = None


class DagVersionList(_Reply):
    """A workflow's versions, newest first."""

    name: str
    versions: list[DagVersion]


class DagRolledBack(_Reply):
    """The new version a rollback made."""

    name: str
    version: int
    version_id: str
    rolled_back_to: str


class DagVersionDiff(_Reply):
    """A unified diff of two versions' pretty-printed JSON documents."""

    from_version: str = Field(serialization_alias="from", validation_alias="from")
    to_version: str = Field(serialization_alias="to", validation_alias="to")
    diff: str

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# --- requests ----------------------------------------------------------------------------


class ListDagWorkflows(Query):
    """The user's stored workflows."""

    type: Literal["workflow.dag.list"] = "workflow.dag.list"
    subject: ClassVar[Subject] = _query("dag_list")
    reply_model: ClassVar[ReplyModel] = DagWorkflowList
    user_id: str


class GetDagWorkflow(Query):
    """One workflow's latest version."""

    type: Literal["workflow.dag.get"] = "workflow.dag.get"
    subject: ClassVar[Subject] = _query("dag_get")
    reply_model: ClassVar[ReplyModel] = DagWorkflowDocument
    user_id: str
    name: str = Field(pattern=WORKFLOW_NAME_PATTERN)


class SaveDagWorkflow(Command):
    """Create a workflow, or store a new version of it (`create` in the seed's CLI)."""

    type: Literal["workflow.dag.save"] = "workflow.dag.save"
    subject: ClassVar[Subject] = _cmd("dag_save")
    reply_model: ClassVar[ReplyModel] = DagWorkflowSaved
    source: str = Field(min_length=1, max_length=MAX_DEFINITION_CHARS)
    format: Literal["json", "yaml"] = "json"


class ValidateDagWorkflow(Query):
    """Check a document (when `source` is given) or the stored one; stores nothing."""

    type: Literal["workflow.dag.validate"] = "workflow.dag.validate"
    subject: ClassVar[Subject] = _query("dag_validate")
    reply_model: ClassVar[ReplyModel] = DagValidation
    user_id: str
    name: str = Field(pattern=WORKFLOW_NAME_PATTERN)
    source: str | None = Field(default=None, min_length=1, max_length=MAX_DEFINITION_CHARS)
    format: Literal["json", "yaml"] = "json"


class DeleteDagWorkflow(Command):
    """Remove a workflow from the list; started runs go on with their pinned version."""

    type: Literal["workflow.dag.delete"] = "workflow.dag.delete"
    subject: ClassVar[Subject] = _cmd("dag_delete")
    reply_model: ClassVar[ReplyModel] = DagWorkflowDeleted
    name: str = Field(pattern=WORKFLOW_NAME_PATTERN)


class StartDagRun(Command):
    """Start a run of a workflow's latest version; `request_id` makes a retry return it again."""

    type: Literal["workflow.dag.run"] = "workflow.dag.run"
    subject: ClassVar[Subject] = _cmd("dag_run")
    reply_model: ClassVar[ReplyModel] = DagRunAccepted
    name: str = Field(pattern=WORKFLOW_NAME_PATTERN)
    variables: dict[str, str] = Field(default_factory=dict)
    mode: RunMode = "live"
    request_id: str | None = Field(default=None, min_length=1, max_length=200)


class ListDagRuns(Query):
    """Runs of the user, of one workflow when `workflow` is set; shadow runs are never listed."""

    type: Literal["workflow.dag.runs"] = "workflow.dag.runs"
    subject: ClassVar[Subject] = _query("dag_runs")
    reply_model: ClassVar[ReplyModel] = DagRunList
    user_id: str
    workflow: str | None = Field(default=None, pattern=WORKFLOW_NAME_PATTERN)
    limit: int = Field(default=50, ge=1, le=1000)


class GetDagRun(Query):
    """One run with its steps, handoffs and agent messages."""

    type: Literal["workflow.dag.run_detail"] = "workflow.dag.run_detail"
    subject: ClassVar[Subject] = _query("dag_run_detail")
    reply_model: ClassVar[ReplyModel] = DagRunDetail
    user_id: str
    run_id: str = Field(min_length=1, max_length=64)


DEFAULT_CANCEL_REASON = "cancelled by its owner"


class CancelDagRun(Command):
    """Cancel a running run: its calls in flight are cancelled and it ends as `cancelled`.

    Asking again is harmless (the first reason is kept); a run that has already ended some
    other way is a `conflict`.
    """

    type: Literal["workflow.dag.cancel"] = "workflow.dag.cancel"
    subject: ClassVar[Subject] = _cmd("dag_cancel")
    reply_model: ClassVar[ReplyModel] = DagRunCancel
    run_id: str = Field(min_length=1, max_length=64)
    reason: str = Field(default=DEFAULT_CANCEL_REASON, min_length=1, max_length=500)


class DagRunChanged(Broadcast):
    """A run's log was written outside its driver (a cancel request): the replica driving the
    run reads it again now, instead of at its next write or lease renewal."""

    type: Literal["workflow.dag.run_changed"] = "workflow.dag.run_changed"
    subject: ClassVar[Subject] = _cmd("dag_run_changed")
    run_id: str = Field(min_length=1, max_length=64)


class ListDagVersions(Query):
    """A workflow's version history, newest first."""

    type: Literal["workflow.dag.versions"] = "workflow.dag.versions"
    subject: ClassVar[Subject] = _query("dag_versions")
    reply_model: ClassVar[ReplyModel] = DagVersionList
    user_id: str
    name: str = Field(pattern=WORKFLOW_NAME_PATTERN)


class RollbackDagWorkflow(Command):
    """Store a new version whose document is that of an earlier one."""

    type: Literal["workflow.dag.rollback"] = "workflow.dag.rollback"
    subject: ClassVar[Subject] = _cmd("dag_rollback")
    reply_model: ClassVar[ReplyModel] = DagRolledBack
    name: str = Field(pattern=WORKFLOW_NAME_PATTERN)
    version_id: str = Field(pattern=VERSION_ID_PATTERN)


class DiffDagVersions(Query):
    """A unified diff between two versions (of one workflow or of two)."""

    type: Literal["workflow.dag.diff"] = "workflow.dag.diff"
    subject: ClassVar[Subject] = _query("dag_diff")
    reply_model: ClassVar[ReplyModel] = DagVersionDiff
    user_id: str
    from_version: str = Field(pattern=VERSION_ID_PATTERN)
    to_version: str = Field(pattern=VERSION_ID_PATTERN)


DAG_REQUESTS = (
    ListDagWorkflows,
    GetDagWorkflow,
    SaveDagWorkflow,
    ValidateDagWorkflow,
    DeleteDagWorkflow,
    StartDagRun,
    ListDagRuns,
    GetDagRun,
    CancelDagRun,
    DagRunChanged,
    ListDagVersions,
    RollbackDagWorkflow,
    DiffDagVersions,
)
