"""A user id Mem0 would store as another (trimmed) is refused before any store sees it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from baton_agent_runner.adapters import sql
from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.adapters.sql_logs import SqlReplyLog
from baton_agent_runner.adapters.sql_stores import SqlInboxStore
from baton_agent_runner.service.queries import MemoryQueries
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import ListMemoryFacts, RunAgent
from baton_eventstore import create_engine, migrate

OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


@pytest.mark.parametrize("user_id", ["alice ", " alice", "alice\t", "bob smith"])
async def test_a_turn_of_a_user_id_with_white_space_writes_no_other_users_memory(
    tmp_path: Path, user_id: str
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/a.db")
    await migrate(engine, sql.COMPONENT, sql.STEPS)
    now = lambda: datetime.now(UTC)  # noqa: E731
    memory = Mem0MemoryStore(await asyncio.to_thread(open_memory, tmp_path / "q", None))
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=AgentFactory(OPENAI),
        memory=memory,
        inbox=SqlInboxStore(engine, now),
        replies=SqlReplyLog(engine, now),
        timeout=10,
        store_timeout=2,
    )
    queries = MemoryQueries(memory, runner.inbox, 2)
    fields = {
        "user_id": user_id,
        "agent": "discovery",
        "instance_id": "i",
        "current_step": "discovery",
        "message": "Work: my startup",
        "idempotency_key": "k1",
    }
    try:
        # Refused as it arrives, naming the field (a command's user_id is a subject token)...
        with pytest.raises(ValidationError) as unread:
            RunAgent.model_validate(fields)
        assert [e["loc"] for e in unread.value.errors()] == [("user_id",)]
        # ...and by the turn itself, should a command reach it unchecked.
        turn = RunAgent.model_construct(**fields)
        with pytest.raises(RemoteError) as refused:
            await runner.run(turn)
        assert refused.value.body.code == ErrorCode.INVALID
        with pytest.raises(RemoteError):
            await queries.memory_facts(ListMemoryFacts(user_id=user_id))
        assert await memory.facts("alice", "priorities") == {}
    finally:
        memory.close()
        await engine.dispose()
