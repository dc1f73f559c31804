"""A turn whose reply cannot be recorded takes back the facts it wrote. It restored the value it
had read before its model call, whatever was there by then: a fact that another turn of the
same user wrote meanwhile, its reply recorded, was wiped."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.adapters.sql_logs import SqlReplyLog
from baton_agent_runner.adapters.sql_stores import SqlInboxStore, SqlMemoryStore
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import RemoteError
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


@pytest.mark.parametrize("backend", ["sql", "mem0"])
async def test_failed_turn_take_back_keeps_another_turns_recorded_fact(
    tmp_path: Path, backend: str, engine
) -> None:
    now = lambda: datetime.now(UTC)  # noqa: E731
    if backend == "sql":
        memory = SqlMemoryStore(engine, now)
    else:
        from baton_agent_runner.adapters.fact_locks import fact_locks
        from baton_agent_runner.adapters.mem0_memory import Mem0MemoryStore, open_memory

        memory = Mem0MemoryStore(
            await asyncio.to_thread(open_memory, tmp_path / "qdrant", None), fact_locks(engine)
        )
    agents = GatedAgents(OPENAI)
    agents.go = asyncio.Event()
    runner = AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=agents,
        memory=memory,
        inbox=SqlInboxStore(engine, now),
        replies=FailingLog(engine, now),
        timeout=10,
        store_timeout=0.5,
    )
    try:
        # Turn A reads the facts (none), then its model is slow...
        a = asyncio.create_task(runner.run(turn("turn-a", "Work: my startup")))
        await asyncio.sleep(0.3)
        # ...meanwhile turn B of the same user saves work and its reply is recorded.
        await runner.run(turn("turn-b", "Work: a new job at the bank"))
        assert (await memory.facts("alice", "priorities")) == {
            "work": "Work: a new job at the bank"
        }
        # A answers, writes work, cannot record its reply: takes its write back.
        agents.go.set()
        with pytest.raises(RemoteError):
            await a
        # B's turn happened (its reply is recorded); A's did not. B's fact must stay.
        assert (await memory.facts("alice", "priorities")) == {
            "work": "Work: a new job at the bank"
        }
    finally:
        if backend != "sql":
            memory.close()
