"""A model that defers an inbox item where no inbox step lies ahead: the item is saved now, and
the reply says so after whatever the model said. On SQLite and on PostgreSQL (the conftest's
`engine`), whose stores ask whether an instance keeps such items by different statements."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from baton_agent_runner.adapters import sql_logs, sql_stores
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.domain.output import AgentOutput, Signal
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.service.ports import ModelAnswer, ToolContext
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts.agent_api import RunAgent, TokenUsage

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class FakeModel:
    """A model-backed agent's model that answers in code; `turns` is what it was asked."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []

    def model_name(self, profile: Profile) -> str:
        return "openai:fake"

    def reads(self, profile: Profile) -> frozenset[str]:
        return frozenset()


class Deferring(FakeModel):
    """A model-backed agent that always defers what it is asked to note."""

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        self.turns.append(turn)
        data = {"deferred_inbox_items": ["buy milk"]}
        output = AgentOutput(
            message="I will note that at the inbox step.",
            extracted_data=data,
            workflow_signal=Signal(action="stay", data=data),
        )
        return ModelAnswer(output=output, usage=TokenUsage())


def _runner(engine: Any, agents: Deferring) -> tuple[AgentRunner, sql_stores.SqlInboxStore]:
    inbox = sql_stores.SqlInboxStore(engine, lambda: NOW)
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=agents,
        memory=sql_stores.SqlMemoryStore(engine, lambda: NOW),
        inbox=inbox,
        replies=sql_logs.SqlReplyLog(engine, lambda: NOW),
        timeout=30.0,
        now=lambda: NOW,
    )
    return runner, inbox


def _turn(key: str, ahead: list[str] | None) -> RunAgent:
    context: dict[str, Any] = {} if ahead is None else {"agents_ahead": ahead}
    return RunAgent(
        user_id="alice",
        agent="discovery",
        instance_id="i-1",
        current_step="discovery",
        step_context=context,
        message="add to my inbox: buy milk",
        idempotency_key=key,
    )


async def test_with_no_inbox_step_ahead_the_item_is_saved_and_the_reply_says_so(
    engine: Any,
) -> None:
    agents = Deferring()
    runner, inbox = _runner(engine, agents)
    reply = await runner.run(_turn("i-1:m-1", ["coordinator"]))
    assert agents.turns[0].inbox_ahead is False  # the model's prompt says so too
    assert [i.content for i in await inbox.list_items("alice", 10)] == ["buy milk"]
    assert reply.message.endswith("Saved to your inbox: buy milk."), reply.message
    again = await runner.run(_turn("i-1:m-1", ["coordinator"]))  # a retry: one item
    assert again == reply and await inbox.count("alice", None) == 1


async def test_with_the_inbox_step_ahead_the_item_waits_for_it(engine: Any) -> None:
    # Two instances: in one, the same item said again is kept once (`test_repeated_items`).
    for key, ahead in [("i-1:m-1", ["inbox_collector", "coordinator"]), ("i-2:m-2", None)]:
        agents = Deferring()
        runner, inbox = _runner(engine, agents)
        turn = _turn(key, ahead).model_copy(update={"instance_id": key.split(":")[0]})
        reply = await runner.run(turn)
        assert agents.turns[0].inbox_ahead is True
        assert reply.message == "I will note that at the inbox step."
    assert await inbox.count("alice", None) == 0
    assert await inbox.count("alice", "deferred") == 2


class Wrapping(FakeModel):
    """A model-backed coordinator that says nothing of earlier inbox requests."""

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        self.turns.append(turn)
        output = AgentOutput(message="Well done!", workflow_signal=Signal(action="stay"))
        return ModelAnswer(output=output, usage=TokenUsage())


def _wrap_up(key: str, instance: str = "i-1") -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent="coordinator",
        instance_id=instance,
        current_step="setup_complete",
        step_context={"agents_ahead": []},
        message="thanks",
        idempotency_key=key,
    )


async def test_past_a_skipped_inbox_step_the_next_turn_saves_the_instances_deferred_items(
    engine: Any,
) -> None:
    runner, inbox = _runner(engine, Deferring())
    await runner.run(_turn("i-1:m-1", ["inbox_collector", "coordinator"]))  # deferred by i-1
    await runner.run(
        _turn("i-2:m-1", ["inbox_collector", "coordinator"]).model_copy(
            update={"instance_id": "i-2"}
        )
    )
    assert await inbox.count("alice", "deferred") == 2

    wrapping = Wrapping()
    runner, inbox = _runner(engine, wrapping)
    reply = await runner.run(_wrap_up("i-1:m-2"))  # i-1's brain dump was skipped
    assert (
        reply.message == "Well done!\nI have already added what we set aside earlier: buy milk."
    ), reply.message
    assert await inbox.count("alice", None) == 1  # i-1's item; i-2's still waits for its step
    assert await inbox.count("alice", "deferred") == 1
    again = await runner.run(_wrap_up("i-1:m-3"))
    assert again.message == "Well done!"  # told once


async def test_an_instance_keeps_only_its_own_untold_items(engine: Any) -> None:
    inbox = sql_stores.SqlInboxStore(engine, lambda: NOW)
    await inbox.add("alice", [NewInboxItem("d-1", "buy milk", "deferred")], instance_id="i-1")
    await inbox.add("alice", [NewInboxItem("n-1", "water plants", "new")], instance_id="i-1")
    await inbox.add("alice", [NewInboxItem("d-2", "call the bank", "deferred")], instance_id="i-2")
    await inbox.add("bob", [NewInboxItem("b-1", "bob's item", "deferred")], instance_id="i-3")
    await inbox.add("alice", [NewInboxItem("d-0", "from before", "deferred")])  # no instance

    assert await inbox.unannounced("alice", "i-3") == []  # bob's instance, not alice's
    assert await inbox.unannounced("alice", "i-4") == []
    assert [m.item_id for m in await inbox.unannounced("alice", "i-1")] == ["d-1"]
    await inbox.mark_announced("alice", ["d-1"])
    assert await inbox.unannounced("alice", "i-1") == []  # told: no longer kept
    assert [m.item_id for m in await inbox.unannounced("bob", "i-3")] == ["b-1"]


async def test_an_ended_instance_moves_in_its_own_deferred_items_and_those_of_none(
    engine: Any,
) -> None:
    inbox = sql_stores.SqlInboxStore(engine, lambda: NOW)
    await inbox.add("alice", [NewInboxItem("d-1", "buy milk", "deferred")], instance_id="i-1")
    await inbox.add("alice", [NewInboxItem("d-0", "from before", "deferred")])  # no instance
    await inbox.add("alice", [NewInboxItem("d-2", "call the bank", "deferred")], instance_id="i-2")
    await inbox.add("alice", [NewInboxItem("n-1", "water plants", "new")], instance_id="i-1")
    await inbox.add("bob", [NewInboxItem("b-1", "bob's item", "deferred")], instance_id="i-1")

    assert await inbox.promote_deferred_of("alice", "i-1") == 2
    assert await inbox.promote_deferred_of("alice", "i-1") == 0  # an end redelivered
    assert await inbox.count("alice", "new") == 3
    assert await inbox.count("alice", "deferred") == 1  # i-2's waits for its own end
    assert await inbox.count("bob", "deferred") == 1
    # Moved in, not told: the next turn at an inbox step mentions them.
    told = {m.item_id for m in await inbox.unannounced("alice")}
    assert told == {"d-0", "d-1", "d-2"}
