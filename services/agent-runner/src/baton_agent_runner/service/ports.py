"""What the use cases need from the outside world, and the errors the outside may raise."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Generic, Protocol, TypeVar, runtime_checkable

from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.domain.task import ModelChoice, TaskCall
from baton_contracts.agent_api import AgentReply, InboxItem, MemoryFact, TaskResult, TokenUsage


class StoreUnavailable(Exception):
    """A store (database, Qdrant, the embedder) cannot be reached or did not answer; `store`
    names it when the raiser knows ("memory", "inbox", "replies", ...): a turn's caller is
    told which one, not what the driver said (which may quote the statement and its data).
    `within` is the seconds it was given when it did not answer in them (None: it was down)."""

    def __init__(self, message: str, store: str | None = None, within: float | None = None) -> None:
        super().__init__(message)
        self.store = store
        self.within = within


class KeyReused(Exception):
    """What is recorded under an idempotency key answered another request (another message,
    agent, step or prompt): the caller sent a key it had used for something else."""


class ModelUnavailable(Exception):
    """The model failed or could not be reached; the turn may be tried again. `reason` is
    what its caller may be told (short, no request or answer body); the message is for logs."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason


class ModelFailed(Exception):
    """The model of a DAG step failed (an error, or an answer that is not usable)."""


class ModelReplyInvalid(Exception):
    """The model answered something that is not a valid structured reply; `usage` is what
    that answer took (it was paid for all the same)."""

    def __init__(self, message: str, usage: TokenUsage | None = None) -> None:
        super().__init__(message)
        self.usage = usage or TokenUsage()


class MemoryStore(Protocol):
    """Long-term memory: facts about a user, one per (category, key); a new text replaces."""

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> str | None:
        """Save or correct one fact; the text it replaced (None: the fact is new), read in the
        same step as the write, so that no other write of the fact comes between."""

    async def forget_fact(self, user_id: str, category: str, key: str) -> str | None:
        """Delete one fact, if the user has it; the text it deleted (None: there was none)."""

    async def set_fact_if(
        self, user_id: str, category: str, key: str, *, holds: str | None, text: str | None
    ) -> bool:
        """Set one fact to `text` (None: delete it), only if it still holds `holds` (None: the
        user has no such fact), in one step no other write of that fact comes between; whether
        it did."""

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in one category, by key."""

    async def count(self, user_id: str, category: str | None) -> int:
        """How many facts the user has (in one category, or in all)."""

    async def list_facts(self, user_id: str, category: str | None, limit: int) -> list[MemoryFact]:
        """Up to `limit` of the user's facts (of one category, or all), by category and key."""

    async def search(
        self, user_id: str, query: str, category: str | None, limit: int
    ) -> list[MemoryFact]:
        """The user's `limit` facts nearest to `query` (of one category, or all), nearest first."""


@dataclass(frozen=True)
class Mention:
    """A deferred inbox item a turn is to tell the user about."""

    item_id: str
    content: str


@dataclass(frozen=True)
class Removal:
    """What asking to take `said` out of an instance's inbox did: the item removed (its row as
    it was, for `InboxStore.put_back`), or, when several items hold it, their contents and no
    item removed; neither when none holds it."""

    said: str
    removed: dict[str, object] | None = None
    several: tuple[str, ...] = ()
    kept: str | None = None
    """When only a part of the item went ("buy dog food" of "call grandma and buy dog food"):
    the item's content now; `removed` holds its row as it was, for `put_back`."""

    @property
    def content(self) -> str | None:
        """The removed item's content."""
        return None if self.removed is None else str(self.removed["content"])


@dataclass(frozen=True)
class InboxTally:
    """What a turn of the inbox collector reads of the inbox (`InboxStore.tally`)."""

    count: int
    open: list[str]


class InboxStore(Protocol):
    """The user's inbox items; deferred ones wait for the brain dump."""

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> list[NewInboxItem]:
        """Save items with `source="onboarding"`, as the items of the turn `turn_key` of the
        workflow instance `instance_id`; an item whose id is already saved is skipped (a
        retry). So is a repeat (`extracted.repeats`): an item whose content an open item (new or
        deferred) of that instance holds, or an earlier one of `items`; the look and the
        insert are one transaction. An item of another turn whose reply is not recorded yet
        keeps none out (that turn may still be taken back, and the repeat with it). The
        repeats, which were not saved."""

    async def discard_turn(self, user_id: str, turn_key: str) -> int:
        """Delete the items the turn `turn_key` saved: its reply could not be recorded, so its
        caller reports it as not done (a retry of the turn saves them again); how many."""

    async def remove(self, user_id: str, instance_id: str, said: str) -> Removal:
        """Delete the one item of the instance `instance_id` whose content holds `said`
        (`extracted.to_remove`), or only the part of it joined by "and" that holds it
        (`extracted.without_part`); none when several do, or none does."""

    async def put_back(self, user_id: str, removal: Removal) -> None:
        """Save again the item `removal` deleted, or give back the part it took out, as it
        was (a take-back); nothing when it is there already."""

    async def contents(self, user_id: str, instance_id: str) -> list[str]:
        """The contents of the user's items of the workflow instance `instance_id`, whatever
        their status (deferred ones too: the brain dump promotes them)."""

    async def promote_deferred(self, user_id: str) -> int:
        """Turn the user's deferred items into new ones (the brain dump started); how many."""

    async def promote_deferred_of(self, user_id: str, instance_id: str) -> int:
        """Turn the deferred items of one instance (and those of no known instance) into new
        ones: the instance ended; how many. None is marked told."""

    async def unannounced(self, user_id: str, instance_id: str | None = None) -> list[Mention]:
        """The deferred items the user was not yet told about, promoted if still deferred, in
        the order they were deferred; with `instance_id`, only those of that instance. Nothing
        is marked told: `mark_announced` does that."""

    async def mark_announced(self, user_id: str, item_ids: list[str]) -> None:
        """The user was told about these items (a reply naming them was recorded)."""

    async def tally(self, user_id: str, instance_id: str, before_turn: str) -> InboxTally:
        """`count(user_id, None, before_turn)` and the contents of the open items (new or
        deferred) of the instance `instance_id` that the turn `before_turn` did not save and
        that keep a repeat out (as `add` reads them: not another turn's whose reply is not
        recorded yet): what the inbox collector reads, in one round trip."""

    async def count(self, user_id: str, status: str | None, before_turn: str | None = None) -> int:
        """Items with that status (None: every item that is not deferred); with `before_turn`,
        without the items of that turn (its first attempt saved them, then failed: its retry
        must count the inbox as the first attempt did)."""

    async def list_items(self, user_id: str, limit: int) -> list[InboxItem]:
        """Up to `limit` of the user's items that are not deferred, newest first."""


V = TypeVar("V", AgentReply, TaskResult)


@dataclass(frozen=True)
class Claim(Generic[V]):
    """What asking for a key found: the value recorded under it; else, the key's claim for
    this process (`mine`: it may call the model now) or for another one, which is calling the
    model (`held_until`: when that claim runs out; None when it could not be read)."""

    recorded: V | None = None
    mine: bool = False
    held_until: datetime | None = None


class ClaimedLog(Protocol[V]):
    """An idempotency log whose keys are claimed before the model is called, so that replicas
    sharing the log call it once per key: the one that claims calls, the others wait."""

    async def get(self, user_id: str, key: str, digest: str | None = None) -> V | None:
        """The value recorded for the request `digest` (`request_digest`), if any; `KeyReused`
        when the key's value answered another request. A value recorded without a digest
        (before the logs kept one) answers any, and so does any value when `digest` is None."""

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[V]:
        """The value recorded for `digest` (`KeyReused` as `get`); else claim the key for this
        process for `seconds` from now (or renew its own claim), unless another process holds
        a claim that has not run out.

        A duration, not an instant: one clock sets and checks every claim's expiry, whichever
        replica claims or asks (on PostgreSQL the database server's), so replicas whose clocks
        differ or step never take a claim that is still held."""

    async def release(self, user_id: str, key: str) -> None:
        """Drop this process's claim on the key (its call failed and recorded nothing), so
        that another may take the key at once instead of when the claim runs out."""


class ReplyLog(ClaimedLog[AgentReply], Protocol):
    """Replies already given, by the caller's idempotency key."""

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        """Record a reply to the request `digest` and drop this process's claim on the key; the
        first reply recorded wins and is returned (another writer's, if it came first; and
        `KeyReused` when that one answered another request)."""


@dataclass(frozen=True)
class ModelAnswer:
    """What the model said for one turn, and the tokens it took."""

    output: AgentOutput
    usage: TokenUsage


@dataclass(frozen=True)
class ToolContext:
    """What a turn's tools read: the user the turn is for, and the stores they read from."""

    user_id: str
    memory: MemoryStore
    inbox: InboxStore


class AgentModels(Protocol):
    """The models behind the agents (the scripted one, or an OpenAI-compatible endpoint)."""

    def model_name(self, profile: Profile) -> str:
        """The model this profile runs on."""

    def reads(self, profile: Profile) -> frozenset[str]:
        """Which stored fields of a `Turn` (`scripted.STORED`) this profile's model looks at;
        the service does not read the others for the turn."""

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        """Run the profile's agent on one turn, its tools (`Profile.tools`) reading through
        `tools`; raises `ModelReplyInvalid` or `ModelUnavailable`."""


class TaskLog(ClaimedLog[TaskResult], Protocol):
    """Results of DAG steps already answered, by the caller's idempotency key."""

    async def put(
        self, user_id: str, key: str, call: TaskCall, result: TaskResult, digest: str | None = None
    ) -> TaskResult:
        """Record a result of the request `digest` and drop this process's claim on the key;
        return what is recorded (another writer's, if it came first; `KeyReused` when that one
        answered another request)."""


@runtime_checkable
class PrunableLog(Protocol):
    """A log kept for idempotency (the reply log, the task log) that forgets old records: a
    retry comes within minutes, so a record older than the retention serves nobody."""

    async def prune(self, older_than: datetime) -> int:
        """Delete the records made before `older_than`; how many went. A key deleted so is
        recorded anew by its next `put`."""


@dataclass(frozen=True)
class TaskAnswer:
    """What the model wrote for one step, its tokens, and the cost it reported (if any)."""

    output: str
    usage: TokenUsage
    cost_usd: float | None = None


class TaskModels(Protocol):
    """The models that answer DAG steps in plain text."""

    def agent_model(self, profile: Profile) -> str:
        """The model setting this profile runs on (`scripted` or `openai:<model>`)."""

    async def perform(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        """Run the agent once on the step; raises `ModelFailed`. The caller enforces `timeout`."""
