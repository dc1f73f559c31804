"""A turn whose reply cannot be recorded takes back the facts it wrote. It restored the value it
had read before its model call, whatever was there by then: a fact that another turn of the
same user wrote meanwhile, its reply recorded, was wiped. And once it read the facts just
before its writes, a turn writing the fact between the take-back's look and its restore was
still wiped: the look and the restore are one compare-and-set now. And a turn writing the fact
between that read and the failed turn's own write was wiped too: the take-back now puts back
what that write itself replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters.fact_locks import fact_locks
from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.adapters.sql_logs import SqlReplyLog
from baton_agent_runner.adapters.sql_stores import SqlInboxStore, SqlMemoryStore
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import RunAgent

OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


class GatedAgents(AgentFactory):
    """The scripted agents; a turn whose message holds 'startup' waits for `go` first."""

    go: asyncio.Event

    async def answer(self, profile, turn, tools):  # type: ignore[no-untyped-def]
        if "startup" in turn.message:
            await self.go.wait()
        return await super().answer(profile, turn, tools)


class FailingLog(SqlReplyLog):
    """The reply log is down for key 'turn-a' (its reply can never be recorded)."""

    async def put(self, user_id, key, reply, digest=None):  # type: ignore[no-untyped-def]
        if key == "turn-a":
            raise StoreUnavailable("reply log down")
        return await super().put(user_id, key, reply, digest)


def turn(key: str, message: str) -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent="discovery",
        instance_id="i-1",
        current_step="discovery",
        message=message,
        idempotency_key=key,
    )


@asynccontextmanager
async def opened(
    backend: str, tmp_path: Path, engine: AsyncEngine, mixin: type | None = None
) -> AsyncIterator[Any]:
    """The memory store of `backend` ("sql" or "mem0" on a local folder, with the fact locks),
    its writes changed by `mixin` when given; closed at the end."""
    base: type = SqlMemoryStore if backend == "sql" else Mem0MemoryStore
    kind = base if mixin is None else type(f"{mixin.__name__}{base.__name__}", (mixin, base), {})
    if backend == "sql":
        yield kind(engine, lambda: datetime.now(UTC))
        return
    memory = kind(
        await asyncio.to_thread(open_memory, tmp_path / "qdrant", None), fact_locks(engine)
    )
    try:
        yield memory
    finally:
        memory.close()


def runner_on(
    memory: Any,
    engine: AsyncEngine,
    replies: SqlReplyLog,
    inbox: SqlInboxStore | None = None,
    agents: AgentFactory | None = None,
    store_timeout: float = 10,
) -> AgentRunner:
    return AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=agents or AgentFactory(OPENAI),
        memory=memory,
        inbox=inbox or SqlInboxStore(engine, lambda: datetime.now(UTC)),
        replies=replies,
        timeout=10,
        store_timeout=store_timeout,
    )


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_failed_turn_take_back_keeps_another_turns_recorded_fact(
    tmp_path: Path, backend: str, engine: AsyncEngine
) -> None:
    agents = GatedAgents(OPENAI)
    agents.go = asyncio.Event()
    replies = FailingLog(engine, lambda: datetime.now(UTC))
    async with opened(backend, tmp_path, engine) as memory:
        runner = runner_on(memory, engine, replies, agents=agents, store_timeout=0.5)
        # Turn A reads the facts (none), then its model is slow...
        a = asyncio.create_task(runner.run(turn("turn-a", "Work: my startup")))
        await asyncio.sleep(0.3)
        # ...meanwhile turn B of the same user saves work and its reply is recorded.
        await runner.run(turn("turn-b", "Work: a new job at the bank"))
        assert (await memory.facts("alice", "priorities")) == {"work": "a new job at the bank"}
        # A answers, writes work, cannot record its reply: takes its write back.
        agents.go.set()
        with pytest.raises(RemoteError):
            await a
        # B's turn happened (its reply is recorded); A's did not. B's fact must stay.
        assert (await memory.facts("alice", "priorities")) == {"work": "a new job at the bank"}


class LateLog(SqlReplyLog):
    """Turn-a's deadline passes as its reply is being recorded (`TurnDeadlines.store` ends it)."""

    async def put(self, user_id, key, reply, digest=None):  # type: ignore[no-untyped-def]
        if key == "turn-a":
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "the turn's deadline passed")
        return await super().put(user_id, key, reply, digest)


class TakingBack(SqlInboxStore):
    """The inbox; `taking_back` is set when turn-a's take-back begins (its items go first)."""

    taking_back = False

    async def discard_turn(self, user_id: str, turn_key: str) -> int:
        self.taking_back |= turn_key == "turn-a"
        return await super().discard_turn(user_id, turn_key)


class Interleaved:
    """A memory store whose first write of turn-a's take-back lets `meanwhile` (another turn)
    run first: the moment right after the take-back looked at the fact."""

    inbox: TakingBack
    meanwhile: Any = None

    async def _first(self) -> None:
        if self.inbox.taking_back and self.meanwhile is not None:
            meanwhile, self.meanwhile = self.meanwhile, None
            await meanwhile()

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> str | None:
        await self._first()
        return await super().put_fact(user_id, category, key, text)  # type: ignore[misc,no-any-return]

    async def forget_fact(self, user_id: str, category: str, key: str) -> str | None:
        await self._first()
        return await super().forget_fact(user_id, category, key)  # type: ignore[misc,no-any-return]

    async def set_fact_if(self, *args: Any, **kwargs: Any) -> bool:
        await self._first()
        return bool(await super().set_fact_if(*args, **kwargs))  # type: ignore[misc]


@pytest.mark.parametrize("backend", ["sql", "mem0"])
@pytest.mark.parametrize("before", [None, "Work: my old job"])
async def test_a_fact_written_while_a_turn_is_taken_back_stays(
    tmp_path: Path, backend: str, before: str | None, engine: AsyncEngine
) -> None:
    now = lambda: datetime.now(UTC)  # noqa: E731
    async with opened(backend, tmp_path, engine, Interleaved) as memory:
        memory.inbox = TakingBack(engine, now)
        runner = runner_on(memory, engine, LateLog(engine, now), inbox=memory.inbox)
        if before is not None:
            await memory.put_fact("alice", "priorities", "work", before)

        async def turn_b() -> None:
            # Turn A wrote work and its take-back looked: it still holds A's text. Now turn B
            # of the same user saves work, and its reply is recorded.
            assert await memory.facts("alice", "priorities") == {"work": "my startup"}
            await runner.run(turn("turn-b", "Work: a new job at the bank"))

        memory.meanwhile = turn_b
        with pytest.raises(RemoteError):
            await runner.run(turn("turn-a", "Work: my startup"))
        assert memory.meanwhile is None  # turn B ran inside A's take-back
        # B's turn happened (its reply is recorded); A's did not. B's fact must stay.
        assert await memory.facts("alice", "priorities") == {"work": "a new job at the bank"}


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_set_fact_if_changes_a_fact_only_while_it_holds_what_was_written(
    tmp_path: Path, backend: str, engine: AsyncEngine
) -> None:
    async with opened(backend, tmp_path, engine) as memory:
        set_if, facts = memory.set_fact_if, memory.facts
        assert not await set_if("alice", "priorities", "work", holds="Work: a", text="Work: b")
        assert not await set_if("alice", "priorities", "work", holds="Work: a", text=None)
        assert await set_if("alice", "priorities", "work", holds=None, text=None)
        assert await facts("alice", "priorities") == {}
        assert await set_if("alice", "priorities", "work", holds=None, text="Work: a")
        assert not await set_if("alice", "priorities", "work", holds=None, text="Work: b")
        assert not await set_if("alice", "priorities", "work", holds=None, text=None)
        assert await facts("alice", "priorities") == {"work": "Work: a"}
        assert not await set_if("alice", "priorities", "work", holds="Work: b", text="Work: c")
        assert await set_if("alice", "priorities", "work", holds="Work: a", text="Work: c")
        assert await facts("alice", "priorities") == {"work": "Work: c"}
        assert await set_if("bob", "priorities", "work", holds=None, text="Work: bob")
        assert await set_if("alice", "priorities", "work", holds="Work: c", text=None)
        assert await facts("alice", "priorities") == {}
        assert await facts("bob", "priorities") == {"work": "Work: bob"}


class WrittenBetween:
    """A memory store that lets `meanwhile` (another turn) run right before turn-a's write of
    a fact: after turn-a read the facts it is about to write, before it writes them."""

    meanwhile: Any = None

    async def _between(self) -> None:
        if self.meanwhile is not None:
            meanwhile, self.meanwhile = self.meanwhile, None
            await meanwhile()

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> str | None:
        if text == "my startup":  # turn-a's write
            await self._between()
        return await super().put_fact(user_id, category, key, text)  # type: ignore[misc,no-any-return]

    async def forget_fact(self, user_id: str, category: str, key: str) -> str | None:
        await self._between()
        return await super().forget_fact(user_id, category, key)  # type: ignore[misc,no-any-return]


@pytest.mark.parametrize("backend", ["sql", "mem0"])
@pytest.mark.parametrize("before", [None, "Work: my old job"])
async def test_a_fact_written_between_a_turns_read_and_its_write_stays_after_its_take_back(
    tmp_path: Path, backend: str, before: str | None, engine: AsyncEngine
) -> None:
    async with opened(backend, tmp_path, engine, WrittenBetween) as memory:
        runner = runner_on(memory, engine, LateLog(engine, lambda: datetime.now(UTC)))
        if before is not None:
            await memory.put_fact("alice", "priorities", "work", before)

        async def turn_b() -> None:
            # Turn A has read work as `before` and not written it yet. Now turn B of the same
            # user saves work, and its reply is recorded.
            await runner.run(turn("turn-b", "Work: a new job at the bank"))

        memory.meanwhile = turn_b
        with pytest.raises(RemoteError):
            await runner.run(turn("turn-a", "Work: my startup"))
        assert memory.meanwhile is None  # turn B ran between A's read and A's write
        # B's turn happened (its reply is recorded); A's did not. B's fact must stay.
        assert await memory.facts("alice", "priorities") == {"work": "a new job at the bank"}


class CutAfterWrite:
    """A memory store whose first write of turn-a's fact lands, then loses its answer (a
    connection cut after the commit): `written` tries it again, and that try finds turn-a's
    own text."""

    cut = False

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> str | None:
        was: str | None = await super().put_fact(user_id, category, key, text)  # type: ignore[misc]
        if text == "my startup" and not self.cut:
            self.cut = True
            raise StoreUnavailable("memory: the connection was cut")
        return was


@pytest.mark.parametrize("backend", ["sql", "mem0"])
@pytest.mark.parametrize("before", [None, "Work: my old job"])
async def test_a_take_back_after_a_retried_write_puts_back_the_fact_as_it_was_before(
    tmp_path: Path, backend: str, before: str | None, engine: AsyncEngine
) -> None:
    async with opened(backend, tmp_path, engine, CutAfterWrite) as memory:
        runner = runner_on(memory, engine, LateLog(engine, lambda: datetime.now(UTC)))
        if before is not None:
            await memory.put_fact("alice", "priorities", "work", before)
        with pytest.raises(RemoteError):
            await runner.run(turn("turn-a", "Work: my startup"))
        assert memory.cut  # the write was tried again
        expected = {} if before is None else {"work": before}
        assert await memory.facts("alice", "priorities") == expected


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_a_fact_write_says_what_it_replaced_and_writes_at_once_replace_one_another(
    tmp_path: Path, backend: str, engine: AsyncEngine
) -> None:
    async with opened(backend, tmp_path, engine) as memory:
        assert await memory.forget_fact("alice", "priorities", "work") is None
        assert await memory.put_fact("alice", "priorities", "work", "Work: a") is None
        assert await memory.put_fact("alice", "priorities", "work", "Work: b") == "Work: a"
        assert await memory.put_fact("bob", "priorities", "work", "Work: bob") is None
        assert await memory.forget_fact("alice", "priorities", "work") == "Work: b"
        assert await memory.forget_fact("alice", "priorities", "work") is None
        # Eight writes of a new fact at once: each replaced exactly the one before it, so one
        # found nothing and every other text but the last was replaced once.
        texts = [f"Work: {n}" for n in range(8)]
        replaced = await asyncio.gather(
            *(memory.put_fact("alice", "priorities", "home", text) for text in texts)
        )
        last = (await memory.facts("alice", "priorities"))["home"]
        assert replaced.count(None) == 1
        assert sorted(r for r in replaced if r is not None) == sorted(set(texts) - {last})
        assert await memory.facts("bob", "priorities") == {"work": "Work: bob"}


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_a_fact_dropped_between_a_turns_read_and_its_drop_stays_dropped_after_its_take_back(
    tmp_path: Path, backend: str, engine: AsyncEngine
) -> None:
    async with opened(backend, tmp_path, engine, WrittenBetween) as memory:
        runner = runner_on(memory, engine, LateLog(engine, lambda: datetime.now(UTC)))
        await memory.put_fact("alice", "priorities", "work", "Work: my old job")

        async def turn_b() -> None:
            # Turn A has read work as the old job and not dropped it yet. Now turn B of the
            # same user drops work too, and its reply is recorded.
            await runner.run(turn("turn-b", "Actually I don't care about work"))
            assert await memory.facts("alice", "priorities") == {}

        memory.meanwhile = turn_b
        with pytest.raises(RemoteError):
            await runner.run(turn("turn-a", "Actually I don't care about work"))
        assert memory.meanwhile is None  # turn B ran between A's read and A's drop
        # B's turn happened (its reply is recorded); A's did not. B's drop must stay: A's drop
        # found nothing to delete, so its take-back has nothing to put back.
        assert await memory.facts("alice", "priorities") == {}


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_a_failed_turn_puts_back_the_note_its_answer_replaced(
    tmp_path: Path, backend: str, engine: AsyncEngine
) -> None:
    """A note (discovery's answer to a follow-up question) written over an earlier one, by a
    turn whose reply cannot be recorded, is taken back to the earlier note: it was deleted."""
    now = lambda: datetime.now(UTC)  # noqa: E731
    async with opened(backend, tmp_path, engine) as memory:
        runner = runner_on(memory, engine, FailingLog(engine, now))
        for area, fact in {"work": "Work", "health": "Health", "relationships": "Family"}.items():
            await memory.put_fact("alice", "priorities", area, fact)
        await memory.put_fact("alice", "situation", "focus", "work — Work, for now")
        asked = "Good. Which of these matters most to you right now?"  # its last reply
        answer = turn("turn-a", "Family, definitely").model_dump()
        answer["history"] = [{"role": "assistant", "text": asked}]
        with pytest.raises(RemoteError):
            await runner.run(RunAgent.model_validate(answer))
        assert await memory.facts("alice", "situation") == {"focus": "work — Work, for now"}


class CommittedLate(SqlReplyLog):
    """Turn-a's reply is recorded, but the answer to its write comes after the turn's deadline
    (`TurnDeadlines.store` ends the wait: the commit went through unseen)."""

    async def put(self, user_id, key, reply, digest=None):  # type: ignore[no-untyped-def]
        recorded = await super().put(user_id, key, reply, digest)
        if key == "turn-a":
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "the turn's deadline passed")
        return recorded


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_a_reply_recorded_before_its_deadline_cut_the_wait_keeps_what_the_turn_wrote(
    tmp_path: Path, backend: str, engine: AsyncEngine
) -> None:
    now = lambda: datetime.now(UTC)  # noqa: E731
    async with opened(backend, tmp_path, engine) as memory:
        replies = CommittedLate(engine, now)
        runner = runner_on(memory, engine, replies)
        with pytest.raises(RemoteError):
            await runner.run(turn("turn-a", "Work: my startup"))
        # The reply is recorded: a retry of the key gets it. What it says was saved must be.
        recorded = await replies.get("alice", "turn-a")
        assert recorded is not None
        assert await runner.run(turn("turn-a", "Work: my startup")) == recorded
        assert await memory.facts("alice", "priorities") == {"work": "my startup"}
