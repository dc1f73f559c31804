"""The agent-runner's own tables: inbox items, memory facts, and replies by idempotency key."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    DateTime,
    Index,
    MetaData,
    String,
    Table,
    Text,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_contracts.agent_api import AgentReply

COMPONENT = "agent_runner"
metadata = MetaData()

inbox_items = Table(
    "agent_inbox_items",
    metadata,
    Column("item_id", String(64), primary_key=True),
    Column("user_id", String(256), nullable=False),
    Column("content", Text, nullable=False),
    Column("source", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_agent_inbox_user", "user_id", "status"),
)
memory_facts = Table(
    "agent_memory_facts",
    metadata,
    Column("user_id", String(256), primary_key=True),
    Column("category", String(64), primary_key=True),
    Column("key", String(128), primary_key=True),
    Column("text", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
replies = Table(
    "agent_replies",
    metadata,
    Column("user_id", String(256), primary_key=True),
    Column("idempotency_key", String(200), primary_key=True),
    Column("reply", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn)


STEPS = [_create_v1]
"""Migration steps of the agent-runner's tables; append, never edit."""

Clock = Callable[[], datetime]


class SqlInboxStore:
    """Inbox items in `agent_inbox_items`."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = engine, now

    async def add(self, user_id: str, contents: list[str], status: str) -> None:
        """Save items with `source="onboarding"`."""
        if not contents:
            return
        rows = [
            {
                "item_id": uuid.uuid4().hex,
                "user_id": user_id,
                "content": content,
                "source": "onboarding",
                "status": status,
                "created_at": self._now(),
            }
            for content in contents
        ]
        async with self._engine.begin() as conn:
            await conn.execute(insert(inbox_items), rows)

    async def promote_deferred(self, user_id: str) -> list[str]:
        """Deferred items become new ones, in the order they were deferred."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.status == "deferred")
        async with self._engine.begin() as conn:
            found = await conn.execute(
                select(inbox_items.c.content).where(mine).order_by(inbox_items.c.created_at)
            )
            contents = [row.content for row in found]
            await conn.execute(update(inbox_items).where(mine).values(status="new"))
        return contents

    async def count(self, user_id: str, status: str | None) -> int:
        """Items with `status`; None counts every item that is not deferred."""
        where = inbox_items.c.user_id == user_id
        where &= inbox_items.c.status == status if status else inbox_items.c.status != "deferred"
        async with self._engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).where(where)) or 0)

    async def list(self, user_id: str) -> list[dict[str, object]]:
        """The user's items, newest first."""
        query = select(inbox_items).where(inbox_items.c.user_id == user_id)
        async with self._engine.connect() as conn:
            rows = await conn.execute(query.order_by(inbox_items.c.created_at.desc()))
            return [dict(row._mapping) for row in rows]


class SqlMemoryStore:
    """Facts in `agent_memory_facts`: the SQL stand-in for the Mem0 adapter."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = engine, now

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> None:
        """Insert, or replace the text of the same key (a correction)."""
        keys = {"user_id": user_id, "category": category, "key": key}
        async with self._engine.begin() as conn:
            changed = await conn.execute(
                update(memory_facts)
                .where(*(memory_facts.c[name] == value for name, value in keys.items()))
                .values(text=text, updated_at=self._now())
            )
            if changed.rowcount == 0:
                await conn.execute(
                    insert(memory_facts).values(**keys, text=text, updated_at=self._now())
                )

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in `category`, by key."""
        query = select(memory_facts.c.key, memory_facts.c.text).where(
            memory_facts.c.user_id == user_id, memory_facts.c.category == category
        )
        async with self._engine.connect() as conn:
            return {row.key: row.text for row in await conn.execute(query)}

    async def count(self, user_id: str, category: str | None) -> int:
        """Facts of the user, in one category or all."""
        where = memory_facts.c.user_id == user_id
        if category:
            where &= memory_facts.c.category == category
        async with self._engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).where(where)) or 0)


class SqlReplyLog:
    """Replies by (user, idempotency key) in `agent_replies`."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = engine, now

    async def get(self, user_id: str, key: str) -> AgentReply | None:
        """The recorded reply, if any."""
        query = select(replies.c.reply).where(
            replies.c.user_id == user_id, replies.c.idempotency_key == key
        )
        async with self._engine.connect() as conn:
            stored = await conn.scalar(query)
        return None if stored is None else AgentReply.model_validate(stored)

    async def put(self, user_id: str, key: str, reply: AgentReply) -> None:
        """Record; a concurrent first writer wins and this one is dropped."""
        row = {
            "user_id": user_id,
            "idempotency_key": key,
            "reply": reply.model_dump(mode="json"),
            "created_at": self._now(),
        }
        try:
            async with self._engine.begin() as conn:
                await conn.execute(insert(replies).values(**row))
        except IntegrityError:
            pass
