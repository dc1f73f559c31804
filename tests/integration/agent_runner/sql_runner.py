"""The turn use case on the SQL stores of one engine, with the shipped profiles and the scripted
model, at a fixed time: what the inbox tests drive turn by turn."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql_logs, sql_stores
from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.service.ports import StoreUnavailable
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts.agent_api import AgentReply

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


class DownReplies(sql_logs.SqlReplyLog):
    """The reply log that cannot record a reply: the turn's writes are taken back."""

    async def put(self, user_id: str, key: str, reply: AgentReply, digest: str) -> AgentReply:
        raise StoreUnavailable("replies: connection refused")


def sql_runner(
    engine: AsyncEngine, replies: type[sql_logs.SqlReplyLog] = sql_logs.SqlReplyLog
) -> AgentRunner:
    """The runner on `engine`'s memory, inbox and reply log (`replies` of that class)."""
    return AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=AgentFactory(OPENAI),
        memory=sql_stores.SqlMemoryStore(engine, lambda: NOW),  # type: ignore[arg-type]
        inbox=sql_stores.SqlInboxStore(engine, lambda: NOW),  # type: ignore[arg-type]
        replies=replies(engine, lambda: NOW),  # type: ignore[arg-type]
        timeout=30.0,
        now=lambda: NOW,
    )
