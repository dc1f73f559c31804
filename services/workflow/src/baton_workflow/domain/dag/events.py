"""Facts recorded in a DAG run's log (one stream per run). Type strings are never renamed.

Each event is JSON-serialisable: `to_payload(event)` gives what the event store keeps and
`from_payload(type, payload)` rebuilds the event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_serializer

from baton_contracts.money import Usd
from baton_workflow.domain.dag.definition import WorkflowDefinition

RunMode = Literal["live", "dry_run", "shadow"]
RunStatus = Literal["success", "error", "cancelled", "timeout"]
FailureStatus = Literal["error", "timeout", "budget_exceeded", "cancelled"]
SkipReason = Literal[
    "branch_not_taken",
    "condition_skipped",
    "on_error_skip",
    "run_stopped",
    "run_timed_out",
    "run_cancelled",
    "parallel_timed_out",
]
NotificationKind = Literal["step", "on_success", "on_failure"]


class _RunEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    at: datetime

    def to_payload(self) -> dict[str, Any]:
        """What the event store keeps: the fields as JSON-ready data (with `type`)."""
        return self.model_dump(mode="json")


class RunStarted(_RunEvent):
    """A run began, pinned to one version of its definition, kept whole (self-contained)."""

    type: Literal["workflow_run.started"] = "workflow_run.started"
    workflow: str
    version: int = 0
    version_id: str = ""
    definition: WorkflowDefinition
    variables: dict[str, str] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)
    mode: RunMode = "live"
    user_id: str = ""
    project_id: str = ""
    deadline: datetime | None = None
    budget_usd: float | None = None

    @field_serializer("definition")
    def _document(self, definition: WorkflowDefinition) -> dict[str, Any]:
        return definition.to_document()


class StepInput(BaseModel):
    """The rendered input of one attempt: what the agent, skill or tool was (or will be) given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: str | None = None
    agent: str | None = None
    model: str | None = None
    provider: str | None = None
    permission_mode: str | None = None
    budget_usd: float | None = None
    handoff_from: str | None = None
    handoff_context: str | None = None
    skill: str | None = None
    args: tuple[str, ...] = ()
    tool_name: str | None = None
    tool_input: dict[str, str] = Field(default_factory=dict)
    notify_to: str | None = None


class StepStarted(_RunEvent):
    """An attempt of a step began; its result is keyed by `idempotency_key`."""

    type: Literal["workflow_run.step_started"] = "workflow_run.step_started"
    step_id: str
    attempt: int
    idempotency_key: str
    input: StepInput = Field(default_factory=StepInput)
    deadline: datetime | None = None


class StepSucceeded(_RunEvent):
    """An attempt finished well (`estimated` when a dry run only priced it)."""

    type: Literal["workflow_run.step_succeeded"] = "workflow_run.step_succeeded"
    step_id: str
    attempt: int
    output: str = ""
    cost_usd: Usd = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    agent: str | None = None
    model: str | None = None
    handoff_from: str | None = None
    estimated: bool = False


class StepFailed(_RunEvent):
    """An attempt failed: an error, its timeout, a budget, or cancelled with the run."""

    type: Literal["workflow_run.step_failed"] = "workflow_run.step_failed"
    step_id: str
    attempt: int
    status: FailureStatus = "error"
    error: str
    cost_usd: Usd = 0.0
    tokens_in: int = 0
    tokens_out: int = 0


class RetryScheduled(_RunEvent):
    """A failed step (onError retry) will start `attempt` at `due_at`."""

    type: Literal["workflow_run.retry_scheduled"] = "workflow_run.retry_scheduled"
    step_id: str
    attempt: int
    due_at: datetime


class StepSkipped(_RunEvent):
    """A step will not run (or its failure is ignored, for onError skip)."""

    type: Literal["workflow_run.step_skipped"] = "workflow_run.step_skipped"
    step_id: str
    reason: SkipReason
    detail: str = ""


class ConditionEvaluated(_RunEvent):
    """A condition step ran: `result`, and the branch it chose (None: false and no else)."""

    type: Literal["workflow_run.condition_evaluated"] = "workflow_run.condition_evaluated"
    step_id: str
    result: bool
    branch: str | None = None


class DelayStarted(_RunEvent):
    """A delay step is waiting until `due_at`: it succeeds then, or times out then when its
    step timeout is shorter than its delay."""

    type: Literal["workflow_run.delay_started"] = "workflow_run.delay_started"
    step_id: str
    due_at: datetime


class NotificationRequested(_RunEvent):
    """A notification is to be sent (a notify step, or onSuccess / onFailure)."""

    type: Literal["workflow_run.notification_requested"] = "workflow_run.notification_requested"
    kind: NotificationKind
    step_id: str | None = None
    text: str
    notify_to: str | None = None
    idempotency_key: str


class RunCancelRequested(_RunEvent):
    """Someone asked to cancel the run; the next decision cancels what is in flight."""

    type: Literal["workflow_run.cancel_requested"] = "workflow_run.cancel_requested"
    reason: str = "cancelled"


class RunCompleted(_RunEvent):
    """The run ended; totals are summed over every recorded attempt."""

    type: Literal["workflow_run.completed"] = "workflow_run.completed"
    status: RunStatus
    error: str = ""
    cost_usd: Usd = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False


RunEvent = Annotated[
    RunStarted
    | StepStarted
    | StepSucceeded
    | StepFailed
    | RetryScheduled
    | StepSkipped
    | ConditionEvaluated
    | DelayStarted
    | NotificationRequested
    | RunCancelRequested
    | RunCompleted,
    Field(discriminator="type"),
]
EVENT_TYPES = frozenset(
    cls.model_fields["type"].default
    for cls in (
        RunStarted,
        StepStarted,
        StepSucceeded,
        StepFailed,
        RetryScheduled,
        StepSkipped,
        ConditionEvaluated,
        DelayStarted,
        NotificationRequested,
        RunCancelRequested,
        RunCompleted,
    )
)
_ADAPTER: TypeAdapter[RunEvent] = TypeAdapter(RunEvent)


def to_payload(event: RunEvent) -> dict[str, Any]:
    """What the event store keeps for an event (JSON-ready, `type` included)."""
    return event.to_payload()


def from_payload(type_name: str, payload: dict[str, Any]) -> RunEvent:
    """Rebuild an event from its stored type and payload (ValueError on an unknown type)."""
    if type_name not in EVENT_TYPES:
        raise ValueError(f"unknown workflow run event type {type_name!r}")
    return _ADAPTER.validate_python({**payload, "type": type_name})
