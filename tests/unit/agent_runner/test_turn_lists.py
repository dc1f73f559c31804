"""A turn saves the completed lists its request carries before it counts the inbox, under the
ids the consumer of their announcement gives them: the count includes them, once."""

from __future__ import annotations

import uuid
from typing import Any

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.service.ports import Claim, InboxTally, Mention
from baton_agent_runner.service.turn_lists import save_carried_lists
from baton_agent_runner.service.turns import AgentRunner
from baton_agent_runner.service.widget_lists import WidgetLists
from baton_contracts.agent_api import AgentReply, RunAgent

from .test_widget_lists import EVENT

EVENT_ID = uuid.UUID("00000000-0000-4000-8000-00000000000b")
ANNOUNCED = EVENT.model_copy(update={"event_id": EVENT_ID})  # the same list, another event
CARRIED = {
    "event_id": str(EVENT_ID),
    "step": "brain_dump",
    "widget_type": "list_input",
    "items": ["buy milk", "call mom"],
}


class Stores:
    """Inbox and reply log in memory; an item whose id is saved is skipped, as in SQL."""

    def __init__(self) -> None:
        self.items: dict[str, str] = {}
        self.adds = 0
        self.replies: dict[str, AgentReply] = {}

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        return {"work": "w", "health": "h", "family": "f"}

    async def unannounced(self, user_id: str, instance_id: str | None = None) -> list[Mention]:
        return []

    async def count(self, user_id: str, status: str | None, before_turn: str | None = None) -> int:
        return len(self.items)

    async def tally(self, user_id: str, instance_id: str, before_turn: str) -> InboxTally:
        return InboxTally(len(self.items), list(self.items.values()))

    async def contents(self, user_id: str, instance_id: str) -> list[str]:
        return list(self.items.values())

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> list[NewInboxItem]:
        self.adds += 1
        for item in items:
            self.items.setdefault(item.item_id, item.content)
        return []

    async def get(self, user_id: str, key: str, digest: str | None = None) -> AgentReply | None:
        return self.replies.get(key)

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[AgentReply]:
        return Claim(mine=True)

    async def release(self, user_id: str, key: str) -> None:
        return None

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        return self.replies.setdefault(key, reply)


def turn(*carried: Any) -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent="coordinator",
        instance_id="i-1",
        current_step="completed",
        step_context={"widgets_completed": list(carried)},
        can_complete=True,
        message="thanks",
        idempotency_key="i-1:m-9",
    )


async def test_the_coordinator_counts_a_list_whose_announcement_has_not_come_yet() -> None:
    stores = Stores()
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=AgentFactory(OpenAISettings(None, "x", 1.0, 0)),
        memory=stores,  # type: ignore[arg-type]
        inbox=stores,  # type: ignore[arg-type]
        replies=stores,
        timeout=30.0,
    )
    reply = await runner.run(turn(CARRIED))
    assert "inbox items: 2" in reply.message, reply.message
    # The announcement comes after all: its consumer finds the items saved.
    assert await WidgetLists(stores, timeout=5.0).completed(ANNOUNCED) == 0  # type: ignore[arg-type]
    assert sorted(stores.items.values()) == ["buy milk", "call mom"]


async def test_only_lists_of_the_shape_the_workflow_sends_are_saved() -> None:
    stores = Stores()
    uppercase = CARRIED | {"event_id": str(EVENT_ID).upper()}  # the same id, written otherwise
    not_lists = [
        "a list",
        CARRIED | {"widget_type": "checklist"},
        CARRIED | {"event_id": "e-1"},
        CARRIED | {"event_id": 7},
        CARRIED | {"items": "buy milk"},
        {"event_id": str(uuid.uuid4()), "widget_type": "list_input"},
    ]
    assert await save_carried_lists(stores, turn(*not_lists, uppercase)) == 2  # type: ignore[arg-type]
    await WidgetLists(stores, timeout=5.0).completed(ANNOUNCED)  # type: ignore[arg-type]
    assert sorted(stores.items.values()) == ["buy milk", "call mom"]


async def test_a_turn_that_carries_no_list_writes_nothing() -> None:
    stores = Stores()
    assert await save_carried_lists(stores, turn()) == 0  # type: ignore[arg-type]
    none_at_all = turn().model_copy(update={"step_context": {}})
    assert await save_carried_lists(stores, none_at_all) == 0  # type: ignore[arg-type]
    assert stores.adds == 0


async def test_a_list_its_consumer_saved_first_is_not_written_again() -> None:
    stores = Stores()
    await WidgetLists(stores, timeout=5.0).completed(ANNOUNCED)  # type: ignore[arg-type]
    assert stores.adds == 1
    assert await save_carried_lists(stores, turn(CARRIED)) == 0  # type: ignore[arg-type]
    assert stores.adds == 1


async def test_an_item_typed_in_the_chat_and_listed_too_is_saved_once_by_the_turn() -> None:
    stores = Stores()
    stores.items["typed"] = "Buy  Milk"
    assert await save_carried_lists(stores, turn(CARRIED)) == 1  # type: ignore[arg-type]
    assert sorted(stores.items.values()) == ["Buy  Milk", "call mom"]
