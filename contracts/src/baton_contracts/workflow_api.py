"""Requests the workflow service answers for conversation workflows, and their replies."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from baton_contracts.base import CallerDeadline, Command, Query, ReplyModel, Subject
from baton_contracts.ids import InstanceId
from baton_contracts.signal_data import SignalData
from baton_contracts.storable import NonBlankText
from baton_contracts.workflow_base import Reply, cmd, query

MAX_MESSAGE_CHARS = 8000
"""A user message above this many characters is refused with `too_large` (HTTP 413)."""

_NOT_SHOWN = (
    r"\u0000-\u0020\u007f-\u00a0\u00ad\u0600-\u0605\u061c\u06dd\u070f"
    r"\u0890\u0891\u08e2\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f"
    r"\u3000\ufeff\ufff9-\ufffb"
)
MESSAGE_TEXT_PATTERN = rf"^[^\u0000]*[^{_NOT_SHOWN}][^\u0000]*$"
"""A user message's text as a JSON Schema (ECMA-262) pattern: no NUL, and a character that
shows, one of the Basic Multilingual Plane that is neither white space, a control character
(Unicode Cc, NUL among them) nor an invisible format character (Unicode Cf). Only stated for
clients: the workflow service checks the text, and past that plane also refuses a text whose
only characters besides white space are format characters (the tags at U+E0020, say), which a
pattern cannot tell apart in ECMA-262 UTF-16."""

SignalAction = Literal["complete_step", "stay", "need_input"]
Outcome = Literal["transitioned", "stayed", "blocked", "forced", "completed"]
StepStatus = Literal["completed", "active", "skipped", "pending"]
"""`skipped`: passed without closing it (a signal named a later step; `is_required: false`)."""


TARGET_STEP_MAX = 64
"""The longest `target_step` a signal may name."""


class WorkflowSignal(Reply):
    """Seed 000's `workflow_signal`; `shared` goes to the context every step sees."""

    action: SignalAction = "stay"
    data: SignalData = Field(default_factory=dict)
    shared: SignalData = Field(default_factory=dict)
    # A step id is at most 63 characters (`domain.definitions`): a longer one names no step,
    # and quoted whole in the refusal it made a reply NATS would not carry.
    target_step: str | None = Field(default=None, max_length=TARGET_STEP_MAX)


class InstanceSummary(Reply):
    """An instance as a list shows it: its read row without the context (`GetInstance`)."""

    instance_id: str
    workflow_id: str
    user_id: str
    status: Literal["active", "completed"]
    current_step: str
    progress: float
    messages_in_step: int
    created_at: datetime
    updated_at: datetime


class InstanceView(InstanceSummary):
    """An instance as the `workflow_instances` read model holds it, with its context."""

    context: dict[str, Any] | None
    """Always there in `GetInstance`, a start's and a signal's reply. Null only in a chat
    turn's (`MessageReply.turn.instance`) whose agent answered so long that the answer and the
    whole context together would not fit a NATS message: `GetInstance` then has it."""


class StartReply(Reply):
    """The started instance, or the user's active one (`created` false)."""

    created: bool
    instance: InstanceView


class TurnReply(Reply):
    """What a signal or an exchange led to."""

    outcome: Outcome
    instance: InstanceView
    previous_step: str | None = None
    reason: str | None = None
    missing_criteria: list[str] = Field(default_factory=list)
    warning: str | None = None


class InstanceList(Reply):
    """One page of a user's active instances, oldest first, each without its context.

    A context holds up to 512 KiB (step data and shared, 256 KiB each): listed with them, two
    full instances made a reply over the 1 MiB a NATS message carries, and the list (the
    console's first request) answered 500. `GetInstance` gives one instance's context.
    """

    instances: list[InstanceSummary]
    # Left off the wire on the last page: a gateway older than paging refuses unknown fields.
    next_after: str | None = Field(default=None, exclude_if=lambda after: after is None)
    """Set when more instances follow: ask again with it as `after`."""

    @model_validator(mode="before")
    @classmethod
    def _without_context(cls, data: Any) -> Any:
        # A workflow service older than this model lists each instance with its context: the
        # gateway, upgraded first, reads that reply by leaving the contexts out.
        if not isinstance(data, dict) or not isinstance(data.get("instances"), list):
            return data
        listed = [
            {k: v for k, v in item.items() if k != "context"} if isinstance(item, dict) else item
            for item in data["instances"]
        ]
        return {**data, "instances": listed}


class StepProgress(Reply):
    """One step of the path and where the instance stands with it."""

    id: str
    title: str
    agent_slug: str
    status: StepStatus


class ProgressView(Reply):
    """Seed 001 component 10: current step, every step's status, counter, percentage."""

    instance_id: str
    current_step: str
    status: Literal["active", "completed"]
    steps: list[StepProgress]
    messages_in_step: int
    completion_percentage: float


class LoggedEvent(Reply):
    """One event of an instance's log."""

    version: int
    type: str
    payload: dict[str, Any]
    recorded_at: datetime


class EventLog(Reply):
    """An instance's log, in order: one page of it."""

    instance_id: str
    events: list[LoggedEvent]
    # Left off the wire on the last page: a gateway older than paging refuses unknown fields
    # (`extra="forbid"`) and keeps reading every log that fits in one page.
    next_after_version: int | None = Field(default=None, exclude_if=lambda after: after is None)
    """Set when more events follow: ask again with it as `after_version`."""


class CriterionView(Reply):
    """One criterion of the current step: met or not, with the numbers behind it."""

    checker: str
    met: bool
    detail: str
    observed: int | None = None
    required: int | None = None
    error: bool = False
    params: dict[str, Any] = Field(default_factory=dict)
    """The criterion's parameters as its workflow definition gives them (`{"widget_type":
    "list_input", "min_items": 1}`), so a client can offer what meets it before it is met."""


class Explanation(Reply):
    """Why an instance is (not) advancing."""

    instance_id: str
    status: Literal["active", "completed"]
    current_step: str
    messages_in_step: int
    min_messages: int
    max_messages: int
    can_complete: bool
    criteria: list[CriterionView]


class StartWorkflow(Command):
    """Start a workflow for the user, or return the user's active instance of it."""

    type: Literal["workflow.start"] = "workflow.start"
    subject: ClassVar[Subject] = cmd("start")
    reply_model: ClassVar[ReplyModel] = StartReply
    workflow_id: str = Field(min_length=1, max_length=64)


class SignalWorkflow(Command):
    """A signal by hand; it counts as the agent's signal on the current step."""

    type: Literal["workflow.signal"] = "workflow.signal"
    subject: ClassVar[Subject] = cmd("signal")
    reply_model: ClassVar[ReplyModel] = TurnReply
    instance_id: str
    command_id: NonBlankText = Field(min_length=1, max_length=128)
    signal: WorkflowSignal
    deadline: CallerDeadline = None


class RecordExchange(Command):
    """One user/agent exchange on the current step, with the agent's signal if it sent one."""

    type: Literal["workflow.record_exchange"] = "workflow.record_exchange"
    subject: ClassVar[Subject] = cmd("record_exchange")
    reply_model: ClassVar[ReplyModel] = TurnReply
    instance_id: str
    command_id: NonBlankText = Field(min_length=1, max_length=128)
    signal: WorkflowSignal | None = None


class _InstanceQuery(Query):
    user_id: str
    instance_id: str


PAGE_LIMIT = 1000
"""The most events, or exchanges, one page of an instance's log or conversation holds."""
PAGE_BYTES = 512 * 1024
"""About the most JSON one page holds: a whole log or chat in one reply passed NATS's 1 MiB."""


MAX_VERSION = 2**63 - 1
"""The largest stream version a store holds (a 64-bit integer column, on every backend)."""


class _PagedQuery(_InstanceQuery):
    # Both left off the wire at their defaults: a workflow service older than paging refuses
    # unknown fields (`extra="forbid"`), and answers the first page, the whole log, as before.
    after_version: int = Field(
        default=0, ge=0, le=MAX_VERSION, exclude_if=lambda after_version: after_version == 0
    )
    """Only what the log recorded after this version (0: from the start)."""
    limit: int = Field(
        default=PAGE_LIMIT, ge=1, le=PAGE_LIMIT, exclude_if=lambda limit: limit == PAGE_LIMIT
    )


class ListActiveInstances(Query):
    """One page of the user's active instances, oldest first: after the instance `after`, at
    most `limit` and about `PAGE_BYTES` of JSON."""

    type: Literal["workflow.list_active"] = "workflow.list_active"
    subject: ClassVar[Subject] = query("list_active")
    reply_model: ClassVar[ReplyModel] = InstanceList
    user_id: str
    # Both left off the wire at their defaults: a workflow service older than paging refuses
    # unknown fields (`extra="forbid"`), and answers the first page as before.
    after: InstanceId | None = Field(default=None, exclude_if=lambda after: after is None)
    """Only the instances listed after this one (the previous page's `next_after`)."""
    limit: int = Field(
        default=PAGE_LIMIT, ge=1, le=PAGE_LIMIT, exclude_if=lambda limit: limit == PAGE_LIMIT
    )


class GetInstance(_InstanceQuery):
    """One instance with its context."""

    type: Literal["workflow.get_instance"] = "workflow.get_instance"
    subject: ClassVar[Subject] = query("get_instance")
    reply_model: ClassVar[ReplyModel] = InstanceView


class GetProgress(_InstanceQuery):
    """An instance's progress through its steps."""

    type: Literal["workflow.get_progress"] = "workflow.get_progress"
    subject: ClassVar[Subject] = query("get_progress")
    reply_model: ClassVar[ReplyModel] = ProgressView


class GetInstanceEvents(_PagedQuery):
    """An instance's event log."""

    type: Literal["workflow.get_events"] = "workflow.get_events"
    subject: ClassVar[Subject] = query("get_events")
    reply_model: ClassVar[ReplyModel] = EventLog


class ExplainInstance(_InstanceQuery):
    """Each criterion of the current step, met or not, and the message counter."""

    type: Literal["workflow.explain"] = "workflow.explain"
    subject: ClassVar[Subject] = query("explain")
    reply_model: ClassVar[ReplyModel] = Explanation


class ChatMessage(Reply):
    """One message of an instance's conversation."""

    role: Literal["user", "assistant"]
    text: str
    step: str
    agent: str
    client_message_id: str
    at: datetime


class Conversation(Reply):
    """An instance's conversation, oldest first: one page of it."""

    instance_id: str
    messages: list[ChatMessage]
    # Left off the wire on the last page: a gateway older than paging refuses unknown fields
    # (`extra="forbid"`) and keeps reading every log that fits in one page.
    next_after_version: int | None = Field(default=None, exclude_if=lambda after: after is None)
    """Set when more messages follow: ask again with it as `after_version`."""


class MessageReply(Reply):
    """What one conversation turn led to: the agent's answer, the outcome and the progress."""

    reply: ChatMessage
    turn: TurnReply
    progress: ProgressView
    replayed: bool = False


class SendMessage(Command):
    """A user message on an instance: the step's agent answers and its signal is applied.

    `client_message_id` makes the turn idempotent: the same id again returns the recorded
    answer without asking the agent twice. `text` is checked by the workflow service: blank
    is `invalid`, more than `MAX_MESSAGE_CHARS` characters is `too_large`. `deadline`: when
    the gateway stops waiting (the same on each send again of the turn); the agent's answer
    and the turn's append end before then, or the turn is refused with nothing recorded.
    """

    type: Literal["workflow.send_message"] = "workflow.send_message"
    subject: ClassVar[Subject] = cmd("send_message")
    reply_model: ClassVar[ReplyModel] = MessageReply
    instance_id: str
    client_message_id: NonBlankText = Field(min_length=1, max_length=128)
    text: str
    deadline: CallerDeadline = None


class GetConversation(_PagedQuery):
    """An instance's conversation."""

    type: Literal["workflow.get_conversation"] = "workflow.get_conversation"
    subject: ClassVar[Subject] = query("conversation")
    reply_model: ClassVar[ReplyModel] = Conversation


WORKFLOW_REQUESTS = (
    SendMessage,
    GetConversation,
    StartWorkflow,
    SignalWorkflow,
    RecordExchange,
    ListActiveInstances,
    GetInstance,
    GetProgress,
    GetInstanceEvents,
    ExplainInstance,
)
