"""What a turn keeps of its model's output, and its take-back when its reply is not recorded."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field

from baton_agent_runner.domain.extracted import (
    PRIORITIES,
    SITUATION,
    NewInboxItem,
    distinct,
    dropped_facts_of,
    facts_of,
    inbox_items_of,
    notes_of,
    removed_items_of,
)
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.service.claims import Limited
from baton_agent_runner.service.ports import (
    InboxStore,
    KeyReused,
    MemoryStore,
    Removal,
    ReplyLog,
)
from baton_contracts.agent_api import RunAgent

logger = logging.getLogger("baton.agent_runner")


async def keep(
    memory: MemoryStore,
    inbox: InboxStore,
    cmd: RunAgent,
    output: AgentOutput,
    defer: bool,
    replaced: Replaced,
) -> None:
    """Persist what the agent extracted: priority facts (and the ones taken back), inbox
    items, deferred items (new ones when not `defer`: no inbox step lies ahead). What each
    fact's first write replaced goes into `replaced`, for a take-back."""
    data = output.extracted_data
    user = cmd.user_id
    for area in dropped_facts_of(data):
        await replaced.note(area, memory.forget_fact(user, PRIORITIES, area))
    for area, fact in facts_of(data).items():
        await replaced.note(area, memory.put_fact(user, PRIORITIES, area, fact))
    for key, note in notes_of(data).items():
        await memory.put_fact(user, SITUATION, key, note)
    items = inbox_items_of(cmd.user_id, cmd.idempotency_key, data, defer=defer)
    if items:
        # What the inbox already held is not saved again; the reply is told (`told_repeated`).
        replaced.repeat(
            await inbox.add(
                cmd.user_id, items, turn_key=cmd.idempotency_key, instance_id=cmd.instance_id
            )
        )
    for said in removed_items_of(data):  # "удали кроссовки": of this instance's items
        replaced.removal(await inbox.remove(user, cmd.instance_id, said))


async def read_facts_before(
    memory: MemoryStore, store: Limited, user_id: str, output: AgentOutput
) -> dict[str, str | None]:
    """The user's priority facts this turn's output writes or drops, as they are right
    before it writes them (None: none yet), for `take_back`: what each write replaced,
    when the turn saw its answer, is surer (`facts_to_put_back`)."""
    data = output.extracted_data
    touched = set(facts_of(data)) | set(dropped_facts_of(data))
    if not touched:
        return {}
    # Read now, right before the writes, not the turn's read before its model call: another
    # turn of the user may have written these facts meanwhile, and a take-back must put
    # back that turn's values, not older ones.
    now = await store(memory.facts(user_id, PRIORITIES))
    return {area: now.get(area) for area in sorted(touched)}


async def read_notes_before(
    memory: MemoryStore, store: Limited, user_id: str, output: AgentOutput
) -> dict[str, str]:
    """The user's notes (`SITUATION`) as they are right before this turn writes its own,
    for `take_back`: a model may answer a question again, over an earlier note."""
    if not notes_of(output.extracted_data):
        return {}
    return await store(memory.facts(user_id, SITUATION))


async def take_back(
    memory: MemoryStore,
    inbox: InboxStore,
    cmd: RunAgent,
    output: AgentOutput,
    facts_before: dict[str, str | None],
    notes_before: dict[str, str],
    store_timeout: float,
    removals: list[Removal] | None = None,
) -> None:
    """The turn ends without its reply recorded (its deadline passed, the reply log is
    down): its caller tells the user nothing was recorded, so what it wrote goes too,
    while this process still holds the key: its inbox items are deleted and the facts it
    wrote or dropped are as they were. Otherwise the next message counted them (a
    `memory_facts` criterion met by a turn that did not happen, a list sent again saved
    twice). Shielded, and only logged when it fails: a retry of the key writes the same
    facts and items (upserts by area, ids from the key) and counts as this one did."""
    try:
        async with asyncio.timeout(store_timeout):
            gone = await asyncio.shield(
                _undo(memory, inbox, cmd, output, facts_before, notes_before, removals or [])
            )
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


async def recorded_after_all(
    replies: ReplyLog, cmd: RunAgent, digest: str, store_timeout: float
) -> bool:
    """Whether the key's reply is recorded after all, once its write failed: a write cut off
    by the turn's deadline may have committed (its answer was what came too late). A recorded
    reply is what a retry of the key gets, so what the turn wrote must stay beside it: taken
    back, the retry would say "saved" of facts and items that are gone. Unknown (the log
    cannot be read) counts as not recorded: the take-back then runs as it always did."""
    try:
        async with asyncio.timeout(store_timeout):
            found = await asyncio.shield(replies.get(cmd.user_id, cmd.idempotency_key, digest))
    except KeyReused:
        return True  # another request's reply holds the key: the writes of the key are its
    except Exception as exc:
        logger.warning(
            "turn %s: whether its reply was recorded could not be read (%r); taking back what "
            "it wrote",
            cmd.idempotency_key,
            exc,
        )
        return False
    if found is not None:
        logger.warning(
            "turn %s: its reply was recorded though its write failed; what it wrote stays, "
            "and a retry of the key gets that reply",
            cmd.idempotency_key,
        )
    return found is not None


async def _undo(
    memory: MemoryStore,
    inbox: InboxStore,
    cmd: RunAgent,
    output: AgentOutput,
    facts_before: dict[str, str | None],
    notes_before: dict[str, str],
    removals: list[Removal],
) -> int:
    """Deletes the turn's inbox items, saves again the ones it removed, and puts back its notes
    and facts; how many items went."""
    gone = await inbox.discard_turn(cmd.user_id, cmd.idempotency_key)
    for removal in removals:
        await inbox.put_back(cmd.user_id, removal)
    await _put_back_notes(memory, cmd.user_id, output, notes_before)
    if facts_before:
        await _put_back_facts(memory, cmd.user_id, output, facts_before)
    return gone


async def _put_back_notes(
    memory: MemoryStore, user_id: str, output: AgentOutput, notes_before: dict[str, str]
) -> None:
    for key, note in notes_of(output.extracted_data).items():
        # Put back what it replaced (none: deleted), while it still holds this turn's.
        was = notes_before.get(key)
        if was != note:
            await memory.set_fact_if(user_id, SITUATION, key, holds=note, text=was)


async def _put_back_facts(
    memory: MemoryStore, user_id: str, output: AgentOutput, facts_before: dict[str, str | None]
) -> None:
    # Only what is still this turn's own write is put back: a fact another turn of the user
    # wrote or dropped since (its reply recorded) is that turn's, not ours. The look and the
    # restore are one step: a read, then a write, wiped that turn's fact when it was written
    # in between.
    wrote = _written_facts(output)
    for area, was in facts_before.items():
        if was != wrote.get(area):
            await memory.set_fact_if(user_id, PRIORITIES, area, holds=wrote.get(area), text=was)


def _written_facts(output: AgentOutput) -> dict[str, str | None]:
    """The facts a turn's output writes, by area (None: it drops that area's fact)."""
    data = output.extracted_data
    wrote: dict[str, str | None] = dict.fromkeys(dropped_facts_of(data))
    wrote.update(facts_of(data))
    return wrote


@dataclass
class Replaced:
    """What a turn's fact writes replaced, by area, as the first write of each area answered.

    Only the first: a retry (`written`) of a write whose answer was lost finds that write's own
    text (or, for a drop, nothing), which says nothing of what was there before. Nor does an
    answer equal to the turn's own text: a drop that found nothing may be another turn's drop
    that came first, recorded, and putting the read text back would bring that fact back."""

    found: dict[str, str | None] = field(default_factory=dict)
    tried: set[str] = field(default_factory=set)
    removed: dict[str, Removal] = field(default_factory=dict)
    """What each request to take an item out did, by what was said: the attempt that removed
    one (a retry after a lost answer finds it gone, which says nothing)."""

    repeated: list[str] = field(default_factory=list)
    """The items the turn said again while the inbox held them, not saved (each once: a
    retried write finds the same repeats)."""

    kept_back: list[str] = field(default_factory=list)
    """Those of `repeated` the turn kept for the brain dump (deferred): the item they repeat
    is kept for it too, in no inbox yet, and the reply must not say "already in your inbox"."""

    def repeat(self, items: list[NewInboxItem]) -> None:
        self.repeated = distinct([*self.repeated, *(item.content for item in items)])
        deferred = (item.content for item in items if item.status == "deferred")
        self.kept_back = distinct([*self.kept_back, *deferred])

    def removal(self, removal: Removal) -> None:
        had = self.removed.get(removal.said)
        if had is None or had.removed is None:
            self.removed[removal.said] = removal

    @property
    def removals(self) -> list[Removal]:
        return list(self.removed.values())

    async def note(self, area: str, write: Awaitable[str | None]) -> None:
        first = area not in self.tried
        self.tried.add(area)
        was = await write
        if first:
            self.found[area] = was


def facts_to_put_back(
    read_before: dict[str, str | None], replaced: Replaced
) -> dict[str, str | None]:
    """What a take-back puts back: each fact as the turn's own first write found it
    (`replaced`), else as it was read right before the writes (a write whose answer the turn
    never saw). The read alone missed a turn of the same user writing or dropping the fact
    between that read and this turn's write: the take-back put back the older text over that
    turn's recorded change."""
    return {**read_before, **replaced.found}
