"""Requests the agent-runner answers: one agent turn, and the workflow's criteria checkers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from baton_contracts.base import Broadcast, Command, Kind, Query, ReplyModel, Subject
from baton_contracts.ids import in_words
from baton_contracts.money import Usd
from baton_contracts.storable import NonBlankText
from baton_contracts.workflow_api import MAX_MESSAGE_CHARS, WorkflowSignal

TASK_LOG_UNAVAILABLE = "the agent-runner's task log is unavailable; try again"
"""`agent.cmd.task`'s `unavailable` message when the agent-runner's own database did not
answer: the step's result is not recorded, and the same request under the same key may be
sent again (the workflow does, as for an agent-runner that is restarting)."""

CompletionReason = Literal["user_confirmed", "criteria_met", "max_reached"]
NextAction = Literal["continue", "transition", "wait_for_input"]
PERMISSION_MODES = ("default", "plan", "acceptEdits", "bypassPermissions")
"""Claude Code's permission modes: what `RunTask.permission_mode` may be (none: `default`).
The workflow refuses another in a definition, the agent-runner in a task (a rendered template)."""


class Count(BaseModel):
    """How many there are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    count: int = Field(ge=0)


class CountMemoryFacts(Query):
    """How many long-term memory facts a user has in a category (e.g. `priorities`)."""

    type: Literal["agent.count_memory_facts"] = "agent.count_memory_facts"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="memory_facts")
    reply_model: ClassVar[ReplyModel] = Count
    user_id: str
    category: str | None = Field(default=None, min_length=1, max_length=64)


class CountInboxItems(Query):
    """How many inbox items a user has (optionally only those with one status)."""

    type: Literal["agent.count_inbox_items"] = "agent.count_inbox_items"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="inbox_items")
    reply_model: ClassVar[ReplyModel] = Count
    user_id: str
    status: str | None = None


AGENT_SLUG_PATTERN = r"^[a-z0-9_\-]{1,64}$"
"""An agent profile's slug, as `agent.cmd.run` carries it (a workflow step names one)."""
AgentSlug = Annotated[
    str,
    StringConstraints(pattern=AGENT_SLUG_PATTERN),
    in_words("an agent slug is 1 to 64 lower-case letters, digits, '-' or '_'"),
]

TASK_AGENT_PATTERN = r"^[A-Za-z0-9_\-]+$"
"""The agent a DAG step names, as `agent.cmd.task` carries it (its length is checked apart)."""
MAX_TASK_AGENT_CHARS = 64
MAX_TASK_MODEL_CHARS = 200
MAX_TASK_PROVIDER_CHARS = 64
MAX_TASK_PERMISSION_MODE_CHARS = 64
"""The longest agent, model, provider and permission mode a task carries: a DAG step that
names a longer one (not a template) is refused when the workflow is saved, not when each run
asks its agent."""
TaskAgent = Annotated[
    str,
    StringConstraints(pattern=TASK_AGENT_PATTERN),
    in_words("an agent is named by letters, digits, '-' or '_' only"),
]

MAX_HISTORY_CHARS = MAX_MESSAGE_CHARS * 4
"""The longest text one history entry may carry; a longer earlier answer is sent cut to this."""


class HistoryEntry(BaseModel):
    """One earlier message of the conversation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["user", "assistant"]
    text: str = Field(max_length=MAX_HISTORY_CHARS)


class TokenUsage(BaseModel):
    """Tokens the model call consumed (zero for the scripted model's bookkeeping is allowed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)


class AgentReply(BaseModel):
    """Seed 001 component 7 plus seed 000's `workflow_signal`, usage and cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: str
    step_completed: bool = False
    completion_reason: CompletionReason | None = None
    extracted_data: dict[str, Any] = Field(default_factory=dict)
    next_action: NextAction = "continue"
    workflow_signal: WorkflowSignal = Field(default_factory=WorkflowSignal)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: Usd = Field(default=0.0, ge=0)
    agent: str = ""
    model: str = ""


class RunAgent(Command):
    """Run one turn of an agent; the same `idempotency_key` returns the recorded reply."""

    type: Literal["agent.run"] = "agent.run"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.CMD, name="run")
    reply_model: ClassVar[ReplyModel] = AgentReply
    agent: AgentSlug = Field(min_length=1, max_length=64)
    instance_id: str = Field(min_length=1, max_length=128)
    current_step: str = Field(min_length=1, max_length=64)
    step_context: dict[str, Any] = Field(default_factory=dict)
    can_complete: bool = False
    step_required: bool = Field(default=True, exclude_if=lambda required: required)
    """Whether the step must be finished (its definition's `is_required`): an optional one may
    be skipped, and its agent may say so. Written only when false, so an agent-runner older
    than the field still reads every turn of a required step."""
    history: list[HistoryEntry] = Field(default_factory=list, max_length=200)
    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    idempotency_key: str = Field(min_length=1, max_length=200)
    deadline: AwareDatetime | None = None
    """When the caller stops waiting for the reply (the workflow service sends its own wait).
    A turn asked after it is refused, the model gets only the time left, and what the turn
    extracted is not kept once it has passed: a caller that gave up has nothing recorded.
    An instant of the sender's clock, read against that clock (its reading travels with each
    send, `Baton-Sent-At`), not against the clock of the host that answers."""


MAX_PROMPT_CHARS = 200_000
"""A DAG step's rendered prompt, or a handoff's context, may be long: another step's output."""


class TaskResult(BaseModel):
    """What an agent produced for one DAG step, with its usage and cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    output: str
    usage: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: Usd = Field(default=0.0, ge=0)
    agent: str
    model: str = ""
    replayed: bool = False


class RunTask(Command):
    """Run an agent on one DAG step (`dispatch` or `handoff`); one answer, no conversation.

    The same `idempotency_key` returns the recorded result instead of calling the model again,
    so a step retried after a crash is not paid twice. `context` is a handoff's source output.
    A call that would cost more than `budget_usd` fails with `forbidden` ("budget exceeded").
    """

    type: Literal["agent.run_task"] = "agent.run_task"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.CMD, name="task")
    reply_model: ClassVar[ReplyModel] = TaskResult

    agent: TaskAgent = Field(min_length=1, max_length=MAX_TASK_AGENT_CHARS)
    run_id: str = Field(min_length=1, max_length=64)
    step_id: str = Field(min_length=1, max_length=128)
    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    context: str = Field(default="", max_length=MAX_PROMPT_CHARS)
    context_from: str | None = None
    model: str | None = Field(default=None, max_length=MAX_TASK_MODEL_CHARS)
    provider: str | None = Field(default=None, max_length=MAX_TASK_PROVIDER_CHARS)
    permission_mode: str | None = Field(default=None, max_length=MAX_TASK_PERMISSION_MODE_CHARS)
    """One of `PERMISSION_MODES`; checked by the agent-runner, so the task's other problems
    are reported with it."""
    budget_usd: float | None = Field(default=None, ge=0)
    timeout_seconds: float = Field(default=300.0, gt=0)
    idempotency_key: str = Field(min_length=1, max_length=200)
    deadline: AwareDatetime | None = None
    """When the workflow gives the step up (its timeout or the run's, whichever is first).
    A task asked after it is refused without a model call, and the model gets only the time
    left, however long `timeout_seconds` is: time spent queued counts against the step.
    Read against the sender's clock, as `RunAgent.deadline` is."""
    shadow: bool = Field(default=False, exclude_if=lambda shadow: not shadow)
    """A step of a shadow run: answered for real, but nothing of it is kept (no recorded
    result, so the same key asked again calls the model again)."""


class CancelTask(Broadcast):
    """The workflow gave a step up (its timeout, the run's, a cancel): the replica running the
    task with this key cancels its model call and records nothing, so a retry asks again."""

    type: Literal["agent.cancel_task"] = "agent.cancel_task"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.CMD, name="cancel_task")
    user_id: str
    idempotency_key: str = Field(min_length=1, max_length=200)
    reason: str = Field(default="", max_length=500)


class InboxItem(BaseModel):
    """One item of a user's inbox."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    content: str
    source: str
    status: str
    created_at: datetime


class InboxItems(BaseModel):
    """A user's inbox items, newest first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: list[InboxItem]


class ListInboxItems(Query):
    """A user's inbox, newest first; deferred items (waiting for the brain dump) are left out."""

    type: Literal["agent.list_inbox_items"] = "agent.list_inbox_items"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="inbox")
    reply_model: ClassVar[ReplyModel] = InboxItems
    user_id: str
    limit: int = Field(default=100, ge=1, le=1000)


class MemoryFact(BaseModel):
    """One fact of a user's long-term memory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: str
    key: str
    text: str


class MemoryFacts(BaseModel):
    """A user's facts: all of a category, or the nearest to a search query."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    facts: list[MemoryFact]


class ListMemoryFacts(Query):
    """A user's facts, optionally of one category; with `query`, the `limit` nearest to it."""

    type: Literal["agent.list_memory_facts"] = "agent.list_memory_facts"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="memory")
    reply_model: ClassVar[ReplyModel] = MemoryFacts
    user_id: str
    category: str | None = Field(default=None, min_length=1, max_length=64)
    # Blank (" ", a zero-width space) was taken and answered the facts nearest to nothing.
    query: NonBlankText | None = Field(default=None, min_length=1, max_length=1000)
    limit: int = Field(default=100, ge=1, le=1000)


class AgentProfiles(BaseModel):
    """The agents the agent-runner has a profile for, by slug, sorted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    slugs: list[str]


class ListAgentProfiles(Query):
    """The agent profiles the agent-runner loaded at its start: the agents a DAG step may name.

    The workflow service asks when a DAG document is saved or validated, never when it runs."""

    type: Literal["agent.list_profiles"] = "agent.list_profiles"
    subject: ClassVar[Subject] = Subject(owner="agent", kind=Kind.QUERY, name="profiles")
    reply_model: ClassVar[ReplyModel] = AgentProfiles


AGENT_REQUESTS = (
    RunAgent,
    RunTask,
    CancelTask,
    CountMemoryFacts,
    CountInboxItems,
    ListInboxItems,
    ListMemoryFacts,
    ListAgentProfiles,
)
