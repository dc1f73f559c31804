"""Deferred items are marked told only once a reply of the model's naming them is recorded.

A turn whose model fails, answers something invalid or ends after its deadline leaves them for
the next turn; a retry of a recorded turn returns the reply that named them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton_agent_runner.adapters import sql, sql_logs, sql_stores
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.service.ports import (
    ModelAnswer,
    ModelReplyInvalid,
    ModelUnavailable,
    StoreUnavailable,
    ToolContext,
)
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import RunAgent
from baton_eventstore import create_engine, migrate

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


class Agents:
    """The scripted agents; each call takes the next of `failures` first (None: answer)."""

    def __init__(self, *failures: Exception | None) -> None:
        self.scripted, self.failures, self.turns = AgentFactory(OPENAI), list(failures), []

    def model_name(self, profile: Profile) -> str:
        return "scripted"

    def reads(self, profile: Profile) -> frozenset[str]:
        return self.scripted.reads(profile)

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        self.turns.append(turn)
        failure = self.failures.pop(0) if self.failures else None
        if failure is not None:
            raise failure
        return await self.scripted.answer(profile, turn, tools)


class BrokenMarks(sql_stores.SqlInboxStore):
    """The SQL inbox whose `mark_announced` cannot reach the database."""

    async def mark_announced(self, user_id: str, item_ids: list[str]) -> None:
        raise StoreUnavailable("inbox: connection refused")


@pytest.fixture
async def engine(sqlite_url: str) -> AsyncIterator[object]:
    engine = create_engine(sqlite_url)
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    yield engine
    await engine.dispose()


async def _with_deferred(inbox: sql_stores.SqlInboxStore) -> None:
    """Two items deferred during discovery, one after the other."""
    await inbox.add("alice", [NewInboxItem("d-1", "buy milk", "deferred")])
    await inbox.add("alice", [NewInboxItem("d-2", "call the bank", "deferred")])


def _runner(
    engine: object, agents: Agents, clock: Iterator[datetime], **inbox: object
) -> AgentRunner:
    store_class = inbox.get("store", sql_stores.SqlInboxStore)
    return AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=agents,
        memory=sql_stores.SqlMemoryStore(engine, lambda: NOW),  # type: ignore[arg-type]
        inbox=store_class(engine, lambda: NOW),  # type: ignore[operator]
        replies=sql_logs.SqlReplyLog(engine, lambda: NOW),  # type: ignore[arg-type]
        timeout=30.0,
        now=lambda: next(clock),
    )


def _turn(key: str, message: str = "fix the bike") -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent="inbox_collector",
        instance_id="i-1",
        current_step="brain_dump",
        message=message,
        idempotency_key=key,
        deadline=NOW + timedelta(seconds=30),
    )


def _always(moment: datetime) -> Iterator[datetime]:
    while True:
        yield moment


@pytest.mark.parametrize(
    "failure",
    [ModelUnavailable("connection reset"), TimeoutError()],
    ids=["model-unavailable", "model-timeout"],
)
async def test_a_turn_whose_model_fails_leaves_the_items_for_the_next(
    engine: object, failure: Exception
) -> None:
    agents = Agents(failure)
    runner = _runner(engine, agents, _always(NOW))
    await _with_deferred(sql_stores.SqlInboxStore(engine, lambda: NOW))  # type: ignore[arg-type]

    with pytest.raises(RemoteError) as caught:
        await runner.run(_turn("i-1:m-1"))
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert agents.turns[0].promoted == ["buy milk", "call the bank"]

    reply = await runner.run(_turn("i-1:m-2"))
    assert "buy milk" in reply.message and "call the bank" in reply.message
    later = await runner.run(_turn("i-1:m-3", "pay the rent"))
    assert agents.turns[-1].promoted == []  # told once, by the reply that was recorded
    assert "buy milk" not in later.message


async def test_an_invalid_model_reply_is_recorded_but_tells_nothing(engine: object) -> None:
    agents = Agents(ModelReplyInvalid("no JSON"))
    runner = _runner(engine, agents, _always(NOW))
    await _with_deferred(sql_stores.SqlInboxStore(engine, lambda: NOW))  # type: ignore[arg-type]

    fallback = await runner.run(_turn("i-1:m-1"))
    assert "buy milk" not in fallback.message  # the fallback reply names no item

    told = await runner.run(_turn("i-1:m-2"))
    assert "buy milk" in told.message


async def test_a_turn_ending_after_its_deadline_tells_nothing(engine: object) -> None:
    agents = Agents()
    # In time before the model call, past the deadline once it has answered; then in time.
    clock = iter([NOW, NOW, NOW + timedelta(seconds=31), *[NOW] * 10])
    runner = _runner(engine, agents, clock)
    await _with_deferred(sql_stores.SqlInboxStore(engine, lambda: NOW))  # type: ignore[arg-type]

    with pytest.raises(RemoteError):
        await runner.run(_turn("i-1:m-1"))
    told = await runner.run(_turn("i-1:m-2"))
    assert "buy milk" in told.message


async def test_a_retry_of_a_recorded_turn_returns_the_reply_that_told(engine: object) -> None:
    agents = Agents()
    runner = _runner(engine, agents, _always(NOW))
    await _with_deferred(sql_stores.SqlInboxStore(engine, lambda: NOW))  # type: ignore[arg-type]

    first = await runner.run(_turn("i-1:m-1"))
    again = await runner.run(_turn("i-1:m-1"))
    assert again == first and "buy milk" in again.message
    assert len(agents.turns) == 1


async def test_a_reply_whose_marks_fail_is_still_answered_and_tells_again_later(
    engine: object, caplog: pytest.LogCaptureFixture
) -> None:
    broken = _runner(engine, Agents(), _always(NOW), store=BrokenMarks)
    await _with_deferred(sql_stores.SqlInboxStore(engine, lambda: NOW))  # type: ignore[arg-type]

    with caplog.at_level(logging.WARNING, logger="baton.agent_runner"):
        reply = await broken.run(_turn("i-1:m-1"))
    assert "buy milk" in reply.message
    assert "could not be marked told" in caplog.text

    healed = _runner(engine, Agents(), _always(NOW))
    again = await healed.run(_turn("i-1:m-2"))
    assert "buy milk" in again.message  # mentioned twice rather than never


async def test_unannounced_promotes_only_deferred_items_and_marks_nothing(engine: object) -> None:
    inbox = sql_stores.SqlInboxStore(engine, lambda: NOW)  # type: ignore[arg-type]
    await _with_deferred(inbox)
    await inbox.add("alice", [NewInboxItem("n-1", "water plants", "new")])
    await inbox.add("bob", [NewInboxItem("b-1", "bob's item", "deferred")])

    first = await inbox.unannounced("alice")
    assert [(m.item_id, m.content) for m in first] == [
        ("d-1", "buy milk"),
        ("d-2", "call the bank"),
    ]
    assert await inbox.count("alice", "new") == 3  # promoted
    assert await inbox.unannounced("alice") == first  # asked again: nothing was marked

    await inbox.mark_announced("alice", ["d-1"])
    assert [m.content for m in await inbox.unannounced("alice")] == ["call the bank"]
    await inbox.mark_announced("alice", ["b-1"])  # another user's id marks nothing of alice's
    assert await inbox.count("bob", "deferred") == 1
    assert [m.item_id for m in await inbox.unannounced("bob")] == ["b-1"]


class ReplyLogDown(sql_logs.SqlReplyLog):
    async def put(self, *args: object, **kwargs: object) -> object:
        raise StoreUnavailable("replies: connection reset")


def _with_reply_log_down(engine: object) -> tuple[AgentRunner, Any, Any]:
    """A runner on the SQL memory and inbox whose reply log fails every write."""
    memory = sql_stores.SqlMemoryStore(engine, lambda: NOW)  # type: ignore[arg-type]
    inbox = sql_stores.SqlInboxStore(engine, lambda: NOW)  # type: ignore[arg-type]
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=Agents(),  # type: ignore[arg-type]
        memory=memory,
        inbox=inbox,
        replies=ReplyLogDown(engine, lambda: NOW),  # type: ignore[arg-type]
        timeout=5.0,
        store_timeout=0.5,
        now=lambda: NOW,
    )
    return runner, memory, inbox


def _said(agent: str, step: str, message: str, key: str) -> RunAgent:
    return RunAgent(
        user_id="alice", agent=agent, instance_id="i-1", current_step=step, message=message,
        idempotency_key=key,
    )  # fmt: skip


async def test_a_turn_whose_reply_is_not_recorded_takes_back_only_its_own_items(
    engine: object,
) -> None:
    runner, _, inbox = _with_reply_log_down(engine)
    await _with_deferred(inbox)  # items of no turn
    await inbox.add("alice", [NewInboxItem("o-1", "older", "new")], turn_key="i-1:m-0")
    await inbox.add("bob", [NewInboxItem("b-1", "bob's", "new")], turn_key="i-1:m-1")
    with pytest.raises(RemoteError) as caught:
        await runner.run(
            _said("inbox_collector", "brain_dump", "buy bread; fix the bike", "i-1:m-1")
        )
    assert caught.value.code == ErrorCode.UNAVAILABLE
    left = await inbox.list_items("alice", 50)
    assert sorted(item.content for item in left) == ["buy milk", "call the bank", "older"]
    assert [item.content for item in await inbox.list_items("bob", 50)] == ["bob's"]


async def test_a_turn_whose_reply_is_not_recorded_leaves_the_facts_as_they_were(
    engine: object,
) -> None:
    # Its facts stayed while the user was told nothing was recorded: a `memory_facts`
    # criterion could be met by a turn that did not happen (found by a review).
    runner, memory, _ = _with_reply_log_down(engine)
    await memory.put_fact("alice", "priorities", "work", "the old job")
    said = "Work: a new job; health: running; family first"
    with pytest.raises(RemoteError):
        await runner.run(_said("discovery", "discovery", said, "i-1:m-2"))
    assert await memory.facts("alice", "priorities") == {"work": "the old job"}
    assert await memory.count("alice", "priorities") == 1
