"""The SQL memory store (the stand-in for Mem0), on the agent-runner's `agent_memory_facts`
table; the inbox store is in `sql_inbox`, and is still importable from here."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters.sql import Clock, memory_facts, reachable, upsert
from baton_agent_runner.adapters.sql_inbox import SqlInboxStore
from baton_contracts.agent_api import MemoryFact
from baton_eventstore import autocommit
from baton_eventstore.engine import read, write_transaction

__all__ = ["SqlInboxStore", "SqlMemoryStore"]

_WORD = re.compile(r"\w+")


class SqlMemoryStore:
    """Facts in `agent_memory_facts`: the SQL stand-in for the Mem0 adapter."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = autocommit(engine), now
        self._transactions = engine  # `_engine` commits each statement on its own
        self._upsert = upsert(engine, memory_facts)

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> str | None:
        """Insert, or replace the text of the same key (a correction); the text it replaced
        (None: the fact is new), read in the same transaction, under the row's lock."""
        fact = _fact(user_id, category, key)
        row = {"user_id": user_id, "category": category, "key": key}
        with reachable("memory"):
            async with write_transaction(self._transactions) as conn:
                while True:
                    was = await conn.scalar(
                        select(memory_facts.c.text).where(fact).with_for_update()
                    )
                    if was is not None:
                        changes = {"text": text, "updated_at": self._now()}
                        await conn.execute(update(memory_facts).where(fact).values(**changes))
                        return str(was)
                    added = await conn.execute(
                        self._upsert.values(
                            **row, text=text, updated_at=self._now()
                        ).on_conflict_do_nothing(index_elements=["user_id", "category", "key"])
                    )
                    if added.rowcount:
                        return None
                    # Another turn added it between the look and the insert (PostgreSQL: a
                    # row not there yet has no lock to take): look again, at its row.

    async def forget_fact(self, user_id: str, category: str, key: str) -> str | None:
        """Delete the fact of that key, if there is one; the text it deleted."""
        statement = delete(memory_facts).where(_fact(user_id, category, key))
        with reachable("memory"):
            async with write_transaction(self._engine) as conn:
                was = await conn.scalar(statement.returning(memory_facts.c.text))
        return None if was is None else str(was)

    async def set_fact_if(
        self, user_id: str, category: str, key: str, *, holds: str | None, text: str | None
    ) -> bool:
        """One statement whose condition is the fact's text (or its absence), so that a write
        of the fact by another turn cannot come between the look and the change."""
        row = {"user_id": user_id, "category": category, "key": key}
        fact = _fact(user_id, category, key)
        if holds is None and text is None:
            return await self._select_text(fact) is None
        statement: Any
        if holds is None:  # still none: add it back
            statement = self._upsert.values(**row, text=text, updated_at=self._now())
            statement = statement.on_conflict_do_nothing(
                index_elements=["user_id", "category", "key"]
            )
        elif text is None:
            statement = delete(memory_facts).where(fact & (memory_facts.c.text == holds))
        else:
            statement = (
                update(memory_facts)
                .where(fact & (memory_facts.c.text == holds))
                .values(text=text, updated_at=self._now())
            )
        with reachable("memory"):
            async with write_transaction(self._engine) as conn:
                return bool((await conn.execute(statement)).rowcount)

    async def _select_text(self, fact: Any) -> str | None:
        with reachable("memory"):
            found = (await read(self._engine, select(memory_facts.c.text).where(fact))).scalar()
        return None if found is None else str(found)

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        """The user's facts in `category`, by key."""
        return {fact.key: fact.text for fact in await self._select(user_id, category)}

    async def count(self, user_id: str, category: str | None) -> int:
        """Facts of the user, in one category or all."""
        where = memory_facts.c.user_id == user_id
        if category:
            where &= memory_facts.c.category == category
        with reachable("memory"):
            return int((await read(self._engine, select(func.count()).where(where))).scalar() or 0)

    async def list_facts(self, user_id: str, category: str | None, limit: int) -> list[MemoryFact]:
        """Up to `limit` facts, by category and key."""
        return (await self._select(user_id, category))[:limit]

    async def search(
        self, user_id: str, query: str, category: str | None, limit: int
    ) -> list[MemoryFact]:
        """The `limit` facts sharing the most words with `query` (no vectors here)."""
        wanted = _words(query)
        facts = await self._select(user_id, category)
        ranked = sorted(facts, key=lambda fact: -len(wanted & _words(fact.text)))
        return ranked[:limit]

    async def _select(self, user_id: str, category: str | None) -> list[MemoryFact]:
        query = select(memory_facts).where(memory_facts.c.user_id == user_id)
        if category is not None:
            query = query.where(memory_facts.c.category == category)
        query = query.order_by(memory_facts.c.category, memory_facts.c.key)
        with reachable("memory"):
            rows = (await read(self._engine, query)).all()
        return [MemoryFact(category=row.category, key=row.key, text=row.text) for row in rows]


def _fact(user_id: str, category: str, key: str) -> Any:
    """The row of one fact."""
    return (
        (memory_facts.c.user_id == user_id)
        & (memory_facts.c.category == category)
        & (memory_facts.c.key == key)
    )


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}
