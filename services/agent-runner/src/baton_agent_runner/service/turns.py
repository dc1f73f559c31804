"""One agent turn: load what the agent needs, run it, keep what it extracted, record the reply."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from baton_agent_runner.domain.extracted import PRIORITIES
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.request_digest import turn_digest
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.domain.step_counts import collects_facts, step_counts
from baton_agent_runner.domain.told import told_after
from baton_agent_runner.service.claims import (
    look_up_or_claim,
    released_on_failure,
    reused,
    written,
)
from baton_agent_runner.service.key_locks import KeyLocks
from baton_agent_runner.service.late_inbox import (
    mentioned_by_model,
    to_mention,
    told_moving_on,
    told_promoted,
    told_removed,
    told_repeated,
    told_saved_now,
)
from baton_agent_runner.service.ports import (
    AgentModels,
    InboxStore,
    KeyReused,
    MemoryStore,
    Mention,
    ReplyLog,
    StoreUnavailable,
    ToolContext,
)
from baton_agent_runner.service.queries import require_user
from baton_agent_runner.service.replies import reply_of
from baton_agent_runner.service.turn_deadlines import TurnDeadlines
from baton_agent_runner.service.turn_failures import store_failed
from baton_agent_runner.service.turn_inputs import turn_of
from baton_agent_runner.service.turn_lists import save_carried_lists
from baton_agent_runner.service.turn_model import asked
from baton_agent_runner.service.turn_writes import (
    Replaced,
    facts_to_put_back,
    keep,
    read_facts_before,
    read_notes_before,
    recorded_after_all,
    take_back,
)
from baton_contracts import ErrorBody, ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent

logger = logging.getLogger("baton.agent_runner")


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
            raise RemoteError.of(ErrorCode.UNAVAILABLE, store_failed(exc)) from exc

    async def _run(self, cmd: RunAgent) -> AgentReply:
        digest = turn_digest(cmd)  # once: the claim and the reply's record both keep it
        deadlines = self._deadlines  # one for the turn: the property builds one each time
        recorded = await self._recorded_or_claimed(cmd, digest, deadlines)
        if recorded is not None:
            return recorded
        async with released_on_failure(
            self.replies, cmd.user_id, cmd.idempotency_key, self.store_timeout
        ):
            return await self._answer(cmd, digest, deadlines)

    async def _recorded_or_claimed(
        self, cmd: RunAgent, digest: str, deadlines: TurnDeadlines
    ) -> AgentReply | None:
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
            time_left=lambda: min(self.timeout, deadlines.time_left(cmd, caller_now or now)),
            # The reads before the model and the writes after it, each with its own limit.
            held_after=5 * self.store_timeout,
            store=partial(deadlines.store, name="replies"),
        )

    async def _answer(self, cmd: RunAgent, digest: str, deadlines: TurnDeadlines) -> AgentReply:
        """Call the model (this process holds the key's claim), keep what it extracted, and
        record the reply, which gives the claim up."""
        profile = self._profile(cmd.agent)
        await deadlines.store(save_carried_lists(self.inbox, cmd), name="inbox")  # before reads
        # Deferred items were promoted when the step started (or are now, past a skipped inbox
        # step); this turn tells the user. They are marked told only once a reply naming them
        # is recorded: a failed or late turn leaves them for the next one.
        mentions = await deadlines.store(
            to_mention(self.inbox, self.profiles, profile, cmd), name="inbox"
        )
        by_model = mentioned_by_model(profile)
        promoted = [m.content for m in mentions] if by_model else []
        turn = await deadlines.store(
            turn_of(
                cmd,
                profile,
                promoted,
                agents=self.agents,
                memory=self.memory,
                inbox=self.inbox,
                profiles=self.profiles,
            )
        )
        tools = ToolContext(cmd.user_id, self.memory, self.inbox)
        limit = min(self.timeout, deadlines.time_left(cmd))
        output, usage, answered = await asked(self.agents, profile, turn, limit, tools)
        if not turn.inbox_ahead:
            output = told_saved_now(output, turn.language)
        if not by_model:
            output = told_promoted(output, turn.language, mentions)
        output = told_moving_on(output, turn.language, cmd.step_context)
        # Past the deadline the caller has answered its user that nothing was recorded: keep
        # nothing, so that a next message does not find this turn's facts or items. The writes
        # themselves end by the deadline too: a slow store must not land them after it.
        # Written before the reply is recorded: a retry after a crash here writes the same
        # facts (upserts by key) and the same items (ids from the idempotency key) again.
        # The model was paid: a cut connection must not lose its answer (`written`).
        counts = await self._counts(cmd, profile, turn, output, deadlines)
        before = await read_facts_before(self.memory, deadlines.store, cmd.user_id, output)
        notes_before = await read_notes_before(self.memory, deadlines.store, cmd.user_id, output)
        replaced = Replaced()
        putting = False
        try:
            await deadlines.store(
                written(
                    lambda: keep(self.memory, self.inbox, cmd, output, turn.inbox_ahead, replaced)
                ),
                by=cmd,
            )
            # What a request to take an item out did is known once it is done; so is which
            # items the inbox already held.
            output = told_removed(output, turn.language, replaced.removals)
            output = told_repeated(
                output, turn.language, replaced.repeated, mentions, replaced.kept_back
            )
            # Which facts this instance was told, beside the counters: no store read for it.
            step_data = {**(counts or {}), **told_after(cmd.step_context, output.extracted_data)}
            model = self.agents.model_name(profile)
            reply = reply_of(profile, model, output, usage, step_data)
            # Another replica may have answered the same key meanwhile (the caller retried
            # while this call ran): every caller then gets the one reply that is recorded.
            putting = True
            recorded = await deadlines.store(
                written(lambda: self.replies.put(cmd.user_id, cmd.idempotency_key, reply, digest)),
                by=cmd,
                name="replies",
            )
        except BaseException as exc:
            # A reply recorded despite the failed write (or another request's, `KeyReused`)
            # is the key's: the writes stay with it.
            if not isinstance(exc, KeyReused) and not (
                putting and await recorded_after_all(self.replies, cmd, digest, self.store_timeout)
            ):
                was = facts_to_put_back(before, replaced)
                await take_back(
                    self.memory,
                    self.inbox,
                    cmd,
                    output,
                    was,
                    notes_before,
                    self.store_timeout,
                    replaced.removals,
                )
            raise
        if recorded is not reply:
            logger.warning(
                "turn %s: another process recorded its reply first; returning that one",
                cmd.idempotency_key,
            )
            return recorded
        if mentions and (answered or not by_model):
            await self._mark_told(cmd, mentions, deadlines)
        return reply

    async def _counts(
        self,
        cmd: RunAgent,
        profile: Profile,
        turn: Turn,
        output: AgentOutput,
        deadlines: TurnDeadlines,
    ) -> dict[str, int] | None:
        """Seed 000 §5's counters, on a step that closes on the user's facts only."""
        if not collects_facts(cmd.step_context):
            return None
        if "facts" in self.agents.reads(profile):
            facts = turn.facts
        else:  # an agent that does not read them serves the step: read them for the count
            facts = await deadlines.store(self.memory.facts(cmd.user_id, PRIORITIES), name="memory")
        return step_counts(
            cmd.step_context, cmd.current_step, output.message, facts, output.extracted_data
        )

    async def _mark_told(
        self, cmd: RunAgent, mentions: list[Mention], deadlines: TurnDeadlines
    ) -> None:
        """After the reply is recorded: a crash or a store failure here means the items are
        mentioned again by a later turn, never that they go unmentioned."""
        try:
            # By the deadline too: the reply is recorded, and its caller must get it in time.
            await deadlines.store(
                self.inbox.mark_announced(cmd.user_id, [m.item_id for m in mentions]), by=cmd
            )
        except (StoreUnavailable, RemoteError) as exc:
            logger.warning(
                "turn %s: its reply is recorded, but the items it told could not be marked "
                "told (%s); a later turn mentions them again",
                cmd.idempotency_key,
                exc,
            )

    @property
    def _deadlines(self) -> TurnDeadlines:
        """The turn's time limits, as the fields set them now."""
        return TurnDeadlines(self.timeout, self.store_timeout, self.now, self.caller_now)

    def _profile(self, slug: str) -> Profile:
        if slug not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            detail = ErrorDetail(field="agent", message=f"unknown agent {slug!r} (known: {known})")
            raise RemoteError(
                ErrorBody(code=ErrorCode.NOT_FOUND, message=detail.message, details=[detail])
            )
        return self.profiles[slug]
