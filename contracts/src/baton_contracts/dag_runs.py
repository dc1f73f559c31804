"""The DAG runs: starting, listing, reading and cancelling runs, with the replies to each (a
run's steps, handoffs, agent messages and estimate), and the broadcast that a run's log changed.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import ConfigDict, Field

from baton_contracts.base import Broadcast, Command, Query, ReplyModel, Subject
from baton_contracts.dag_base import (
    RunMode,
    RunStatus,
    StepErrorCode,
    StepStatus,
    WriteDeadline,
)
from baton_contracts.ids import RunId, WorkflowName
from baton_contracts.money import Usd
from baton_contracts.storable import NonBlankText, NulFreeText
from baton_contracts.workflow_base import Reply, cmd, query

# --- replies -----------------------------------------------------------------------------


class DagRunAccepted(Reply):
    """A run was started (or found again by its idempotency key)."""

    run_id: str
    workflow: str
    version: int
    version_id: str
    mode: RunMode
    status: RunStatus


class DagRunSummary(Reply):
    """One run as the run lists show it."""

    run_id: str
    workflow: str
    version: int
    version_id: str
    mode: RunMode
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None = None
    cost_usd: Usd = 0.0
    error: str | None = None


class DagRunList(Reply):
    """One page of runs, newest first: at most the query's `limit` and about `PAGE_BYTES` of
    JSON (a run's `error` has no limit of its own: a thousand runs cancelled with a 500
    character reason made a list over the 1 MiB a NATS reply carries)."""

    runs: list[DagRunSummary]
    # Left off the wire on the last page: a gateway older than paging refuses unknown fields.
    next_after: str | None = Field(default=None, exclude_if=lambda after: after is None)
    """Set when more runs follow: ask again with it as `after`."""


class DagRunCancel(Reply):
    """What a cancel request found: `recorded` when this request asked for it (the run then
    ends as `cancelled` once its in-flight calls are cancelled), False when it already had."""

    run_id: str
    status: RunStatus
    reason: str
    recorded: bool


class DagStepView(Reply):
    """One step of a run (parallel sub-steps are listed as steps of their own).

    `status` keeps seed 004's values; a failed step's `error_code` says why it failed:
    `error`, `timeout`, `budget_exceeded` (its status is `error`) or `cancelled` (`error` too:
    the run timed out or was cancelled while it ran). None for a step that has not failed.
    """

    id: str
    type: str
    status: StepStatus
    attempts: int = 0
    output: str = ""
    error: str | None = None
    error_code: StepErrorCode | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    cost_usd: Usd = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    agent: str | None = None
    parent: str | None = None


class DagHandoff(Reply):
    """A handoff step gave one step's whole output to an agent."""

    from_step: str = Field(serialization_alias="from", validation_alias="from")
    to_step: str = Field(serialization_alias="to", validation_alias="to")
    agent: str
    at: datetime | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class DagAgentMessage(Reply):
    """A prompt sent to an agent, or its answer."""

    step: str
    agent: str
    role: Literal["user", "assistant"]
    text: str
    at: datetime


class DagEstimate(Reply):
    """A dry run's estimate for the whole run."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Usd = 0.0


class DagRunDetail(DagRunSummary):
    """A run with its steps, handoffs and agent messages."""

    variables: dict[str, str] = Field(default_factory=dict)
    steps: list[DagStepView] = Field(default_factory=list)
    handoffs: list[DagHandoff] = Field(default_factory=list)
    messages: list[DagAgentMessage] = Field(default_factory=list)
    estimate: DagEstimate | None = None
    # A page of the steps (the first one, unless `steps_after` was asked): a run of thousands
    # of steps does not fit the 1 MiB a NATS reply carries. Both left off the wire when every
    # step from the page's first is listed, for a gateway older than paging (it refuses
    # unknown fields).
    more_steps: int = Field(default=0, ge=0, exclude_if=lambda more_steps: more_steps == 0)
    """Steps after this page's, not listed in it (0: the page reaches the last step)."""
    next_steps_after: str | None = Field(
        default=None, exclude_if=lambda next_steps_after: next_steps_after is None
    )
    """Ask again with `steps_after` set to this for the next page (None on the last page)."""


# --- requests ----------------------------------------------------------------------------


class StartDagRun(Command):
    """Start a run of a workflow's latest version; `request_id` makes a retry return it again."""

    type: Literal["workflow.dag.run"] = "workflow.dag.run"
    subject: ClassVar[Subject] = cmd("dag_run")
    reply_model: ClassVar[ReplyModel] = DagRunAccepted
    name: WorkflowName
    variables: dict[str, NulFreeText] = Field(default_factory=dict)
    mode: RunMode = "live"
    request_id: NonBlankText | None = Field(default=None, min_length=1, max_length=200)
    deadline: WriteDeadline = None


class ListDagRuns(Query):
    """Runs of the user, of one workflow when `workflow` is set; shadow runs are never listed."""

    type: Literal["workflow.dag.runs"] = "workflow.dag.runs"
    subject: ClassVar[Subject] = query("dag_runs")
    reply_model: ClassVar[ReplyModel] = DagRunList
    user_id: str
    workflow: WorkflowName | None = None
    limit: int = Field(default=50, ge=1, le=1000)
    # Left off the wire when None: a workflow service older than paging refuses unknown
    # fields, and answers the first page as before.
    after: RunId | None = Field(default=None, exclude_if=lambda after: after is None)
    """Only the runs listed after this one (the previous page's `next_after`)."""


DETAIL_STEPS_LIMIT = 1000
"""The most steps a run's detail may be asked to list in one page (`GetDagRun.limit`)."""


class GetDagRun(Query):
    """One run with its steps, handoffs and agent messages."""

    type: Literal["workflow.dag.run_detail"] = "workflow.dag.run_detail"
    subject: ClassVar[Subject] = query("dag_run_detail")
    reply_model: ClassVar[ReplyModel] = DagRunDetail
    user_id: str
    run_id: str = Field(min_length=1, max_length=64)
    # Both left off the wire at their defaults: a workflow service older than paging refuses
    # unknown fields, and answers the first page (the whole run, as it fits) as before.
    steps_after: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        exclude_if=lambda steps_after: steps_after is None,
    )
    """List the steps declared after this one (None: from the first step)."""
    limit: int | None = Field(
        default=None, ge=1, le=DETAIL_STEPS_LIMIT, exclude_if=lambda limit: limit is None
    )
    """At most this many steps (None: as many as fit the reply)."""


DEFAULT_CANCEL_REASON = "cancelled by its owner"


class CancelDagRun(Command):
    """Cancel a running run: its calls in flight are cancelled and it ends as `cancelled`.

    Asking again is harmless (the first reason is kept); a run that has already ended some
    other way is a `conflict`.
    """

    type: Literal["workflow.dag.cancel"] = "workflow.dag.cancel"
    subject: ClassVar[Subject] = cmd("dag_cancel")
    reply_model: ClassVar[ReplyModel] = DagRunCancel
    run_id: str = Field(min_length=1, max_length=64)
    # Stored in the run's log as sent: a NUL failed the append with an internal error.
    reason: NonBlankText = Field(default=DEFAULT_CANCEL_REASON, min_length=1, max_length=500)
    deadline: WriteDeadline = None


class DagRunChanged(Broadcast):
    """A run's log was written outside its driver (a cancel request): the replica driving the
    run reads it again now, instead of at its next write or lease renewal."""

    type: Literal["workflow.dag.run_changed"] = "workflow.dag.run_changed"
    subject: ClassVar[Subject] = cmd("dag_run_changed")
    run_id: str = Field(min_length=1, max_length=64)
