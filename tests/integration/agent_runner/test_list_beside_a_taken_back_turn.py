"""A list's item left out because a chat turn of the instance had saved the same text, and that
turn then taken back (its reply could not be recorded): the item is in neither."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.adapters.sql_logs import SqlReplyLog
from baton_agent_runner.adapters.sql_stores import SqlInboxStore, SqlMemoryStore
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.service.turns import AgentRunner
from baton_agent_runner.service.widget_lists import WidgetLists
from baton_contracts import RemoteError
from baton_contracts.agent_api import RunAgent
from baton_contracts.workflow import WidgetCompleted

OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


class SlowFailingLog(SqlReplyLog):
    """The reply log is down: a put waits for `go`, then fails."""

    reached: asyncio.Event
    go: asyncio.Event

    async def put(self, user_id, key, reply, digest=None):  # type: ignore[no-untyped-def]
        self.reached.set()
        await self.go.wait()
        raise StoreUnavailable("reply log down")


async def test_a_list_item_is_not_lost_with_a_taken_back_chat_turn(engine: AsyncEngine) -> None:
    now = lambda: datetime.now(UTC)  # noqa: E731
    inbox = SqlInboxStore(engine, now)
    log = SlowFailingLog(engine, now)
    log.reached, log.go = asyncio.Event(), asyncio.Event()
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=AgentFactory(OPENAI),
        memory=SqlMemoryStore(engine, now),
        inbox=inbox,
        replies=log,
        timeout=10,
        store_timeout=5,
    )
    turn = RunAgent(
        user_id="alice",
        agent="inbox_collector",
        instance_id="i-1",
        current_step="brain_dump",
        message="- Buy milk",
        idempotency_key="chat-1",
        step_context={"agents_ahead": ["coordinator"]},
    )
    chat = asyncio.create_task(runner.run(turn))
    await asyncio.wait_for(log.reached.wait(), 5)  # the chat turn saved "Buy milk"
    assert [i.content for i in await inbox.list_items("alice", 10)] == ["Buy milk"]
    # The user's list closes the step meanwhile; its consumer saves what the inbox lacks.
    listed = WidgetCompleted(
        event_id=uuid.uuid4(),
        occurred_at=now(),
        user_id="alice",
        workflow_id="onboarding",
        instance_id="i-1",
        step="brain_dump",
        widget_type="list_input",
        items=["buy milk", "Call mom"],
    )
    await WidgetLists(inbox, 5).completed(listed)
    log.go.set()
    with pytest.raises(RemoteError):
        await chat  # 'nothing was recorded': its item is taken back
    contents = sorted(i.content.casefold() for i in await inbox.list_items("alice", 10))
    assert contents == ["buy milk", "call mom"], contents
