"""One agent turn: load what the agent needs, run it, keep what it extracted, record the reply."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from baton_agent_runner.domain.extracted import (
    PRIORITIES,
    SITUATION,
    dropped_facts_of,
    facts_of,
    inbox_items_of,
    notes_of,
)
from baton_agent_runner.domain.language import language_in
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.request_digest import turn_digest
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.domain.step_context import context_count
from baton_agent_runner.domain.storable_output import storable_output
from baton_agent_runner.domain.texts import text
from baton_agent_runner.service.claims import (
    look_up_or_claim,
    released_on_failure,
    reused,
    written,
)
from baton_agent_runner.service.key_locks import KeyLocks
from baton_agent_runner.service.late_inbox import (
    inbox_ahead,
    mentioned_by_model,
    to_mention,
    told_promoted,
    told_saved_now,
)
from baton_agent_runner.service.ports import (
    AgentModels,
    InboxStore,
    KeyReused,
    MemoryStore,
    Mention,
    ModelReplyInvalid,
    ModelUnavailable,
    ReplyLog,
    StoreUnavailable,
    ToolContext,
)
from baton_agent_runner.service.queries import require_user
from baton_agent_runner.service.replies import reply_of
from baton_agent_runner.service.turn_lists import save_carried_lists
from baton_contracts import ErrorBody, ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent, TokenUsage

logger = logging.getLogger("baton.agent_runner")
T = TypeVar("T")


@dataclass
class AgentRunner:
    """The turn use case: one conversation turn of one agent."""

    profiles: dict[str, Profile]
    agents: AgentModels
    memory: MemoryStore
    inbox: InboxStore
    replies: ReplyLog
    timeout: float
    store_timeout: float = 4.0
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    caller_now: Callable[[], datetime | None] = field(default=lambda: None)
    """The caller's clock, which set the request's deadline (`baton_messaging.caller_now`);
    None when unknown, and the deadline is then read on this host's clock (`now`)."""
    _keys: KeyLocks = field(default_factory=KeyLocks)

    async def run(self, cmd: RunAgent) -> AgentReply:
        """Answer one turn; the same idempotency key returns the recorded reply unchanged, also
        when it is asked again while the first call still runs, in this process or in another
        replica (it waits for that call: `service.claims`)."""
        require_user(cmd.user_id)
        # The workflow sends a turn again under its key and deadline when no answer comes in
        # time: a repeat queued behind a call that failed gets its error (`one_attempt`).
        async with self._keys.one_attempt((cmd.user_id, cmd.idempotency_key), cmd.deadline):
            return await self._run_answered(cmd)

    async def _run_answered(self, cmd: RunAgent) -> AgentReply:
        """`_run`, its store errors answered as `RemoteError`s."""
        try:
            return await self._run(cmd)
        except KeyReused as exc:
            raise reused(cmd.idempotency_key) from exc
        except StoreUnavailable as exc:
            logger.warning("turn %s: a store is unavailable: %s", cmd.idempotency_key, exc)
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, "the agent's memory or inbox is unavailable; try again"
            ) from exc

    async def _run(self, cmd: RunAgent) -> AgentReply:
        digest = turn_digest(cmd)  # once: the claim and the reply's record both keep it
        recorded = await self._recorded_or_claimed(cmd, digest)
        if recorded is not None:
            return recorded
        async with released_on_failure(
            self.replies, cmd.user_id, cmd.idempotency_key, self.store_timeout
        ):
            return await self._answer(cmd, digest)

    async def _recorded_or_claimed(self, cmd: RunAgent, digest: str) -> AgentReply | None:
        """The recorded reply; else None once this process holds the key's claim (another
        replica's call of the same key is waited for, within the turn's time)."""
        now, caller_now = self.now(), self.caller_now()
        return await look_up_or_claim(
            self.replies,
            cmd.user_id,
            cmd.idempotency_key,
            digest=digest,
            now=now,
            caller_now=caller_now,
            deadline=cmd.deadline,
            time_left=lambda: min(self.timeout, self._time_left(cmd, caller_now or now)),
            # The reads before the model and the writes after it, each with its own limit.
            held_after=5 * self.store_timeout,
            store=self._store,
        )

    async def _answer(self, cmd: RunAgent, digest: str) -> AgentReply:
        """Call the model (this process holds the key's claim), keep what it extracted, and
        record the reply, which gives the claim up."""
        profile = self._profile(cmd.agent)
        await self._store(save_carried_lists(self.inbox, cmd))  # before any inbox read
        # Deferred items were promoted when the step started (or are now, past a skipped inbox
        # step); this turn tells the user. They are marked told only once a reply naming them
        # is recorded: a failed or late turn leaves them for the next one.
        mentions = await self._store(to_mention(self.inbox, self.profiles, profile, cmd))
        by_model = mentioned_by_model(profile)
        promoted = [m.content for m in mentions] if by_model else []
        turn = await self._store(self._turn(cmd, profile, promoted))
        tools = ToolContext(cmd.user_id, self.memory, self.inbox)
        output, usage, answered = await self._ask(profile, turn, self._time_left(cmd), tools)
        if not turn.inbox_ahead:
            output = told_saved_now(output, turn.language)
        if not by_model:
            output = told_promoted(output, turn.language, mentions)
        # Past the deadline the caller has answered its user that nothing was recorded: keep
        # nothing, so that a next message does not find this turn's facts or items. The writes
        # themselves end by the deadline too: a slow store must not land them after it.
        # Written before the reply is recorded: a retry after a crash here writes the same
        # facts (upserts by key) and the same items (ids from the idempotency key) again.
        # The model was paid: a cut connection must not lose its answer (`written`).
        reply = reply_of(profile, self.agents.model_name(profile), output, usage)
        before = await self._facts_before(cmd, output)
        notes_before = await self._notes_before(cmd, output)
        replaced = _Replaced()
        try:
            await self._store(
                written(lambda: self._keep(cmd, output, turn.inbox_ahead, replaced)), by=cmd
            )
            # Another replica may have answered the same key meanwhile (the caller retried
            # while this call ran): every caller then gets the one reply that is recorded.
            recorded = await self._store(
                written(lambda: self.replies.put(cmd.user_id, cmd.idempotency_key, reply, digest)),
                by=cmd,
            )
        except BaseException as exc:
            if not isinstance(exc, KeyReused):  # that key's writes are the recorded turn's
                await self._take_back(cmd, output, _was(before, replaced), notes_before)
            raise
        if recorded is not reply:
            logger.warning(
                "turn %s: another process recorded its reply first; returning that one",
                cmd.idempotency_key,
            )
            return recorded
        if mentions and (answered or not by_model):
            await self._mark_told(cmd, mentions)
        return reply

    async def _facts_before(self, cmd: RunAgent, output: AgentOutput) -> dict[str, str | None]:
        """The user's priority facts this turn's output writes or drops, as they are right
        before it writes them (None: none yet), for `_take_back`: what each write replaced,
        when the turn saw its answer, is surer (`_was`)."""
        data = output.extracted_data
        touched = set(facts_of(data)) | set(dropped_facts_of(data))
        if not touched:
            return {}
        # Read now, right before the writes, not the turn's read before its model call: another
        # turn of the user may have written these facts meanwhile, and a take-back must put
        # back that turn's values, not older ones.
        now = await self._store(self.memory.facts(cmd.user_id, PRIORITIES))
        return {area: now.get(area) for area in sorted(touched)}

    async def _notes_before(self, cmd: RunAgent, output: AgentOutput) -> dict[str, str]:
        """The user's notes (`SITUATION`) as they are right before this turn writes its own,
        for `_take_back`: a model may answer a question again, over an earlier note."""
        if not notes_of(output.extracted_data):
            return {}
        return await self._store(self.memory.facts(cmd.user_id, SITUATION))

    async def _take_back(
        self,
        cmd: RunAgent,
        output: AgentOutput,
        facts_before: dict[str, str | None],
        notes_before: dict[str, str],
    ) -> None:
        """The turn ends without its reply recorded (its deadline passed, the reply log is
        down): its caller tells the user nothing was recorded, so what it wrote goes too,
        while this process still holds the key: its inbox items are deleted and the facts it
        wrote or dropped are as they were. Otherwise the next message counted them (a
        `memory_facts` criterion met by a turn that did not happen, a list sent again saved
        twice). Shielded, and only logged when it fails: a retry of the key writes the same
        facts and items (upserts by area, ids from the key) and counts as this one did."""

        async def undo() -> int:
            gone = await self.inbox.discard_turn(cmd.user_id, cmd.idempotency_key)
            for key, note in notes_of(output.extracted_data).items():
                # Put back what it replaced (none: deleted), while it still holds this turn's.
                was = notes_before.get(key)
                if was != note:
                    await self.memory.set_fact_if(cmd.user_id, SITUATION, key, holds=note, text=was)
            if not facts_before:
                return gone
            # Only what is still this turn's own write is put back: a fact another turn of
            # the user wrote or dropped since (its reply recorded) is that turn's, not ours.
            # The look and the restore are one step: a read, then a write, wiped that turn's
            # fact when it was written in between.
            wrote = _written_facts(output)
            for area, was in facts_before.items():
                if was != wrote.get(area):
                    await self.memory.set_fact_if(
                        cmd.user_id, PRIORITIES, area, holds=wrote.get(area), text=was
                    )
            return gone

        try:
            async with asyncio.timeout(self.store_timeout):
                gone = await asyncio.shield(undo())
        except Exception as exc:
            logger.warning(
                "turn %s: its reply was not recorded, and what it wrote could not be taken "
                "back (%r); a retry of the turn writes the same again",
                cmd.idempotency_key,
                exc,
            )
            return
        if gone or facts_before:
            logger.info(
                "turn %s: its reply was not recorded; its %d inbox item(s) and %d fact(s) "
                "were taken back",
                cmd.idempotency_key,
                gone,
                len(facts_before),
            )

    async def _mark_told(self, cmd: RunAgent, mentions: list[Mention]) -> None:
        """After the reply is recorded: a crash or a store failure here means the items are
        mentioned again by a later turn, never that they go unmentioned."""
        try:
            # By the deadline too: the reply is recorded, and its caller must get it in time.
            await self._store(
                self.inbox.mark_announced(cmd.user_id, [m.item_id for m in mentions]), by=cmd
            )
        except (StoreUnavailable, RemoteError) as exc:
            logger.warning(
                "turn %s: its reply is recorded, but the items it told could not be marked "
                "told (%s); a later turn mentions them again",
                cmd.idempotency_key,
                exc,
            )

    async def _store(self, work: Awaitable[T], by: RunAgent | None = None) -> T:
        """Store calls get their own deadline; the model's is `timeout`. A write `by` a turn
        with a deadline also ends at that deadline, when it comes first."""
        limit, cut_by_deadline = self.store_timeout, False
        if by is not None and by.deadline is not None:
            try:
                left = self._time_left(by)
            except RemoteError:
                if asyncio.iscoroutine(work):
                    work.close()  # never started: nothing written
                raise
            cut_by_deadline = left < limit
            limit = min(limit, left)
        try:
            # A deadline on this task, not `wait_for`'s extra task per call.
            async with asyncio.timeout(limit):
                return await work
        except TimeoutError as exc:
            if cut_by_deadline:
                assert by is not None
                logger.warning(
                    "turn %s: its caller's deadline passed during a write; what was written "
                    "is keyed by the turn, so the same key asked again writes nothing twice",
                    by.idempotency_key,
                )
                raise RemoteError.of(
                    ErrorCode.UNAVAILABLE,
                    f"the turn's deadline {by.deadline} passed while it was being recorded",
                ) from exc
            raise StoreUnavailable(f"no answer within {self.store_timeout:g}s") from exc

    def _profile(self, slug: str) -> Profile:
        if slug not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            detail = ErrorDetail(field="agent", message=f"unknown agent {slug!r} (known: {known})")
            raise RemoteError(
                ErrorBody(code=ErrorCode.NOT_FOUND, message=detail.message, details=[detail])
            )
        return self.profiles[slug]

    async def _turn(self, cmd: RunAgent, profile: Profile, promoted: list[str]) -> Turn:
        # What the agent's model does not look at is not read: a store call per turn less
        # (a greeter turn of the scripted model reads neither).
        reads = self.agents.reads(profile)
        return Turn(
            agent=profile.slug,
            current_step=cmd.current_step,
            message=cmd.message,
            history=[entry.model_dump() for entry in cmd.history],
            can_complete=cmd.can_complete,
            facts=await self.memory.facts(cmd.user_id, PRIORITIES) if "facts" in reads else {},
            notes=await self.memory.facts(cmd.user_id, SITUATION) if "notes" in reads else {},
            inbox_count=(
                await self.inbox.count(cmd.user_id, None, before_turn=cmd.idempotency_key)
                if "inbox_count" in reads
                else 0
            ),
            promoted=promoted,
            inbox_ahead=inbox_ahead(self.profiles, cmd.step_context),
            # The message's language when it is clear; a short Latin-only one ("ok") or one
            # without letters keeps the language of the user's earlier messages.
            language=language_in(cmd.message, [e.text for e in cmd.history if e.role == "user"]),
            messages_in_step=context_count(cmd.step_context, "messages_in_step"),
            min_messages=context_count(cmd.step_context, "min_messages"),
            step=cmd.step_context,
        )

    def _deadline_clock(self) -> datetime:
        """Now, on the clock the deadline was set by: the caller's when known."""
        return self.caller_now() or self.now()

    def _time_left(self, cmd: RunAgent, now: datetime | None = None) -> float:
        """Seconds until the caller stops waiting (`timeout` without a deadline); past it, the
        turn ends here as `unavailable`."""
        if cmd.deadline is None:
            return self.timeout
        left = (cmd.deadline - (now or self._deadline_clock())).total_seconds()
        if left <= 0:
            logger.warning(
                "turn %s: its caller stopped waiting %.3fs ago; nothing is recorded",
                cmd.idempotency_key,
                -left,
            )
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE,
                f"the turn's deadline {cmd.deadline.isoformat()} has passed; nothing was recorded",
            )
        return left

    async def _ask(
        self, profile: Profile, turn: Turn, time_left: float, tools: ToolContext
    ) -> tuple[AgentOutput, TokenUsage, bool]:
        """The model's output as it can be stored, its usage, and whether the model answered
        (not the fallback)."""
        try:
            async with asyncio.timeout(min(self.timeout, time_left)):
                answer = await self.agents.answer(profile, turn, tools)
        except ModelReplyInvalid as exc:
            logger.warning("agent %s gave an invalid reply, staying: %s", profile.slug, exc)
            return AgentOutput(message=text(turn.language, "model_fallback")), exc.usage, False
        except (TimeoutError, ModelUnavailable) as exc:
            logger.warning("agent %s failed: %r", profile.slug, exc)
            raise RemoteError(
                ErrorBody(
                    code=ErrorCode.UNAVAILABLE,
                    message=f"agent {profile.slug} did not answer in time or failed; try again",
                )
            ) from exc
        output, changed = storable_output(answer.output)
        if changed:
            logger.warning(
                "agent %s wrote what cannot be stored; left out of %s",
                profile.slug,
                ", ".join(changed),
            )
        if not output.message.strip():
            # Nothing of the message is left, or there was only white space ("" is refused
            # by the output's own rules, " " was not): as if malformed, the step stays.
            logger.warning("agent %s answered with a blank message, staying", profile.slug)
            return (
                AgentOutput(message=text(turn.language, "model_fallback")),
                answer.usage,
                False,
            )
        return output, answer.usage, True

    async def _keep(
        self, cmd: RunAgent, output: AgentOutput, defer: bool, replaced: _Replaced
    ) -> None:
        """Persist what the agent extracted: priority facts (and the ones taken back), inbox
        items, deferred items (new ones when not `defer`: no inbox step lies ahead). What each
        fact's first write replaced goes into `replaced`, for a take-back."""
        data = output.extracted_data
        user = cmd.user_id
        for area in dropped_facts_of(data):
            await replaced.note(area, self.memory.forget_fact(user, PRIORITIES, area))
        for area, fact in facts_of(data).items():
            await replaced.note(area, self.memory.put_fact(user, PRIORITIES, area, fact))
        for key, note in notes_of(data).items():
            await self.memory.put_fact(user, SITUATION, key, note)
        items = inbox_items_of(cmd.user_id, cmd.idempotency_key, data, defer=defer)
        if items:
            await self.inbox.add(
                cmd.user_id, items, turn_key=cmd.idempotency_key, instance_id=cmd.instance_id
            )


def _written_facts(output: AgentOutput) -> dict[str, str | None]:
    """The facts a turn's output writes, by area (None: it drops that area's fact)."""
    data = output.extracted_data
    wrote: dict[str, str | None] = dict.fromkeys(dropped_facts_of(data))
    wrote.update(facts_of(data))
    return wrote


@dataclass
class _Replaced:
    """What a turn's fact writes replaced, by area, as the first write of each area answered.

    Only the first: a retry (`written`) of a write whose answer was lost finds that write's own
    text (or, for a drop, nothing), which says nothing of what was there before. Nor does an
    answer equal to the turn's own text: a drop that found nothing may be another turn's drop
    that came first, recorded, and putting the read text back would bring that fact back."""

    found: dict[str, str | None] = field(default_factory=dict)
    tried: set[str] = field(default_factory=set)

    async def note(self, area: str, write: Awaitable[str | None]) -> None:
        first = area not in self.tried
        self.tried.add(area)
        was = await write
        if first:
            self.found[area] = was


def _was(read_before: dict[str, str | None], replaced: _Replaced) -> dict[str, str | None]:
    """What a take-back puts back: each fact as the turn's own first write found it
    (`replaced`), else as it was read right before the writes (a write whose answer the turn
    never saw). The read alone missed a turn of the same user writing or dropping the fact
    between that read and this turn's write: the take-back put back the older text over that
    turn's recorded change."""
    return {**read_before, **replaced.found}
