"""Events the workflow service publishes: conversation instances (seed 000 §6) and DAG runs (004).

A DAG run is an instance too: its events carry the run id as `instance_id`, so a live client
narrows to one run exactly as it narrows to one conversation.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import Field

from baton_contracts.base import Event, Kind, Subject, fits_a_token
from baton_contracts.money import Usd


def _evt(name: str) -> Subject:
    # user_id first so a gateway can listen to one user's events with one wildcard.
    return Subject(owner="workflow", kind=Kind.EVT, name=name, keys=("user_id", "instance_id"))


NO_AGENT = "-"
"""The agent token of a step no agent profile could serve (none named, or not a token)."""


def agent_token(agent: str | None) -> str:
    """The subject token naming the agent that serves a step: its slug, else `NO_AGENT`.

    A slug that could not be a subject token (a dot, a space, a wildcard) is no agent
    profile's slug either (profiles allow `[a-z0-9_-]`), so no agent-runner misses it.
    """
    return agent if agent and fits_a_token(agent) else NO_AGENT


def _step_evt(name: str) -> Subject:
    # A step's start also names its agent, last, so that the agent's owner can consume only
    # the starts of the agents it prepares (`Subject.filter(agent_token=...)`) instead of
    # every step of every instance; the user and the instance stay where `_evt` puts them.
    return Subject(
        owner="workflow",
        kind=Kind.EVT,
        name=name,
        keys=("user_id", "instance_id", "agent_token"),
        legacy_patterns=(_evt(name).pattern,),
    )


class WorkflowStarted(Event):
    """An instance of a workflow was started for a user."""

    type: Literal["workflow.started"] = "workflow.started"
    subject: ClassVar[Subject] = _step_evt("started")

    workflow_id: str
    instance_id: str
    initial_step: str
    initial_agent: str | None = None
    """The agent serving the first step (None from publishers older than the field)."""

    @property
    def agent_token(self) -> str:
        """The subject's last token: the first step's agent (`agent_token`)."""
        return agent_token(self.initial_agent)


class StepChanged(Event):
    """The instance moved from one step to the next (`forced` when `max_messages` moved it)."""

    type: Literal["workflow.step_changed"] = "workflow.step_changed"
    subject: ClassVar[Subject] = _step_evt("step_changed")

    workflow_id: str
    instance_id: str
    previous_step: str
    current_step: str
    progress: float = Field(ge=0.0, le=1.0)
    forced: bool = False
    warning: str | None = None
    current_agent: str | None = None
    """The agent serving `current_step`, so its owner can prepare the step as it starts."""

    @property
    def agent_token(self) -> str:
        """The subject's last token: the new step's agent (`agent_token`)."""
        return agent_token(self.current_agent)


class StepBlocked(Event):
    """A move past the current step was refused; `missing_criteria` says what is lacking."""

    type: Literal["workflow.step_blocked"] = "workflow.step_blocked"
    subject: ClassVar[Subject] = _evt("step_blocked")

    workflow_id: str
    instance_id: str
    current_step: str
    reason: str
    missing_criteria: list[str] = Field(default_factory=list)


class WorkflowCompleted(Event):
    """The instance reached its final step."""

    type: Literal["workflow.completed"] = "workflow.completed"
    subject: ClassVar[Subject] = _evt("completed")

    workflow_id: str
    instance_id: str
    completed_at: datetime
    summary: dict[str, Any] = Field(default_factory=dict)
    # Left off the wire unless forced: a consumer older than these fields refuses unknown ones
    # (`extra="forbid"`), and keeps reading every completion that was not forced.
    forced: bool = Field(default=False, exclude_if=lambda forced: not forced)
    """True when `max_messages` closed the final step without its criteria."""
    warning: str | None = Field(default=None, exclude_if=lambda warning: warning is None)
    """Why it was forced, as on `workflow.step_changed`; None when it was not."""


class MessagesExchanged(Event):
    """A user message and the agent's reply to it were recorded on a step (the chat, live)."""

    type: Literal["workflow.messages_exchanged"] = "workflow.messages_exchanged"
    subject: ClassVar[Subject] = _evt("messages_exchanged")

    workflow_id: str
    instance_id: str
    step: str
    agent: str
    client_message_id: str
    user_text: str
    agent_text: str


class WidgetCompleted(Event):
    """A step closed holding a widget the user completed (seed 000: the brain dump's
    `list_input` list), with its items as the step closed on them.

    Published once per step, as it closes, whatever closed it (the signal carrying the widget,
    a later one, `max_messages`): a widget sent again before that replaced the earlier one in
    the step's data, so only the last one sent is announced. `items` are the widget's entries
    that are text with more than spaces, trimmed, in the order given.
    """

    type: Literal["workflow.widget_completed"] = "workflow.widget_completed"
    subject: ClassVar[Subject] = _evt("widget_completed")

    workflow_id: str
    instance_id: str
    step: str
    widget_type: str
    items: list[str] = Field(default_factory=list)


class RunStarted(Event):
    """A DAG workflow run started, pinned to one version of its definition."""

    type: Literal["workflow.run_started"] = "workflow.run_started"
    subject: ClassVar[Subject] = _evt("run_started")

    instance_id: str
    workflow: str
    version_id: str
    mode: Literal["live", "dry_run", "shadow"]
    steps: list[str] = Field(default_factory=list)


class RunStepChanged(Event):
    """A step of a DAG run changed status (running, waiting, success, error, skipped, timeout)."""

    type: Literal["workflow.run_step_changed"] = "workflow.run_step_changed"
    subject: ClassVar[Subject] = _evt("run_step_changed")

    instance_id: str
    workflow: str
    step_id: str
    status: Literal["running", "waiting", "success", "error", "skipped", "timeout"]
    attempt: int = Field(default=0, ge=0)
    error: str | None = None
    error_code: Literal["error", "timeout", "budget_exceeded", "cancelled"] | None = None
    """Why a failed step failed, as the run's detail says it (`error` also covers a budget
    stop and a cancellation); None unless the step failed."""
    progress: float = Field(ge=0.0, le=1.0)


class RunCompleted(Event):
    """A DAG run ended: `success`, `error`, `timeout` or `cancelled`."""

    type: Literal["workflow.run_completed"] = "workflow.run_completed"
    subject: ClassVar[Subject] = _evt("run_completed")

    instance_id: str
    workflow: str
    status: Literal["success", "error", "timeout", "cancelled"]
    error: str | None = None
    cost_usd: Usd = Field(default=0.0, ge=0)


class WorkflowNotify(Event):
    """A `notify` step, or a run's `onSuccess`/`onFailure` template, sent a message.

    Seed 004 names this SSE event `workflow_notify`; `notify_to` is the channel hint
    (`telegram`, `slack`...) for the consumer that delivers it.
    """

    type: Literal["workflow.notify"] = "workflow.notify"
    subject: ClassVar[Subject] = _evt("notify")

    instance_id: str
    workflow: str
    step_id: str | None = None
    kind: Literal["step", "on_success", "on_failure"] = "step"
    message: str
    notify_to: str | None = None


WORKFLOW_EVENTS = (
    WorkflowStarted,
    StepChanged,
    StepBlocked,
    WorkflowCompleted,
    MessagesExchanged,
    WidgetCompleted,
    RunStarted,
    RunStepChanged,
    RunCompleted,
    WorkflowNotify,
)
