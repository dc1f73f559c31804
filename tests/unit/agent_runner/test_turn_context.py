"""What the turn use case tells the scripted agents from the request: the step's message count
(from `step_context`) and the conversation's language (from the history)."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.service.ports import Claim, InboxTally, Mention
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts.agent_api import AgentReply, HistoryEntry, RunAgent

OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


class Stores:
    """Memory, inbox and reply log in one; the inbox starts with `items` items."""

    def __init__(self, items: int = 0) -> None:
        self.items = items

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        return {}

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> None:
        pass

    async def unannounced(self, user_id: str, instance_id: str | None = None) -> list[Mention]:
        return []

    async def count(self, user_id: str, status: str | None, before_turn: str | None = None) -> int:
        return self.items

    async def tally(self, user_id: str, instance_id: str, before_turn: str) -> InboxTally:
        return InboxTally(self.items, [])

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> list[NewInboxItem]:
        self.items += len(items)
        return []

    async def get(self, user_id: str, key: str, digest: str | None = None) -> AgentReply | None:
        return None

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[AgentReply]:
        return Claim(mine=True)

    async def release(self, user_id: str, key: str) -> None:
        pass

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        return reply


async def _run(stores: Stores, agent: str, message: str, **extra: Any) -> AgentReply:
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=AgentFactory(OPENAI),
        memory=stores,  # type: ignore[arg-type]
        inbox=stores,  # type: ignore[arg-type]
        replies=stores,
        timeout=30.0,
    )
    cmd = RunAgent(
        user_id="alice",
        agent=agent,
        instance_id="i-1",
        current_step="s",
        message=message,
        idempotency_key="i-1:m-1",
        **extra,
    )
    return await runner.run(cmd)


@pytest.mark.parametrize(
    ("step_context", "completes"),
    [
        ({"messages_in_step": 2, "min_messages": 3, "max_messages": 20}, True),
        ({"messages_in_step": 1, "min_messages": 3}, False),
        ({"step_title": "Brain dump"}, False),  # no count: the pre-check's "no" stands
        ({"messages_in_step": "2", "min_messages": 3}, False),  # not a count
    ],
)
async def test_the_step_context_lets_the_third_item_and_done_complete(
    step_context: dict[str, Any], completes: bool
) -> None:
    stores = Stores(items=2)
    reply = await _run(
        stores,
        "inbox_collector",
        "сдать отчёт\nэто всё",
        step_context=step_context,
        can_complete=False,  # the workflow counted two items, before this turn's
    )
    assert reply.step_completed is completes and stores.items == 3


@pytest.mark.parametrize(
    ("history", "message", "start"),
    [
        ([("user", "Привет! Расскажи, что это")], "ok", "Отлично"),
        ([("user", "Привет"), ("assistant", "Hi! I am Baton")], "ok", "Отлично"),
        ([("user", "Hello, who are you?"), ("assistant", "Привет!")], "ok", "Great"),
        ([("user", "Привет")], "Got it, let's go", "Great"),  # several English words
        ([], "ok", "Great"),
    ],
)
async def test_a_short_latin_message_is_answered_in_the_conversations_language(
    history: list[tuple[str, str]], message: str, start: str
) -> None:
    entries = [HistoryEntry.model_validate({"role": r, "text": t}) for r, t in history]
    reply = await _run(Stores(), "greeter", message, history=entries, can_complete=True)
    assert reply.message.startswith(start), reply.message


@pytest.mark.parametrize("message", ["skip this", "пропусти"])
async def test_an_optional_step_is_skipped_when_the_user_asks(message: str) -> None:
    # The request said nothing of it, and discovery answered "This step cannot be skipped".
    reply = await _run(Stores(), "discovery", message, can_complete=True, step_required=False)
    assert reply.step_completed and reply.workflow_signal.action == "complete_step"
    assert "optional" in reply.message or "необязательный" in reply.message


async def test_a_required_step_still_cannot_be_skipped() -> None:
    reply = await _run(Stores(), "discovery", "skip this", can_complete=True)
    assert not reply.step_completed
    assert reply.message.startswith("This step cannot be skipped")
