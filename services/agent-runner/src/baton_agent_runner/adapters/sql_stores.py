"""The inbox and the SQL memory store (the stand-in for Mem0), on the agent-runner's tables."""

from __future__ import annotations

import re
from datetime import UTC, timedelta
from typing import Any

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import raw_postgres
from baton_agent_runner.adapters.sql import (
    Clock,
    inbox_items,
    memory_facts,
    reachable,
    replies,
    upsert,
)
from baton_agent_runner.domain.extracted import NewInboxItem, holds
from baton_agent_runner.service.ports import Mention, Removal
from baton_contracts.agent_api import InboxItem, MemoryFact
from baton_eventstore import autocommit
from baton_eventstore.engine import write_transaction

_WORD = re.compile(r"\w+")

# The PostgreSQL statements of the hot paths (see `raw_postgres`); JSON is read as text and
# validated straight from it.
_COUNT_ITEMS = {
    False: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status <> $2",
    True: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status = $2",
}
_NOT_OF_TURN = " AND turn_key IS DISTINCT FROM $3"
_PROMOTE_OF = (
    "WITH moved AS (UPDATE agent_inbox_items SET status = 'new'"
    " WHERE user_id = $1 AND status = 'deferred' AND (instance_id = $2 OR instance_id IS NULL)"
    " RETURNING 1) SELECT count(*) FROM moved"
)
_ANY_UNANNOUNCED = (
    "SELECT 1 FROM agent_inbox_items"
    " WHERE user_id = $1 AND NOT announced AND instance_id = $2 LIMIT 1"
)


class SqlInboxStore:
    """Inbox items in `agent_inbox_items`."""

    def __init__(self, engine: AsyncEngine, now: Clock) -> None:
        self._engine, self._now = autocommit(engine), now
        self._insert = upsert(engine, inbox_items).on_conflict_do_nothing(
            index_elements=["item_id"]
        )

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> None:
        """Save items with `source="onboarding"`, of the turn `turn_key` of `instance_id`; an
        id already saved is skipped (a retry)."""
        if not items:
            return
        now = self._now()
        rows = [
            {
                "item_id": item.item_id,
                "user_id": user_id,
                "content": item.content,
                "source": "onboarding",
                "status": item.status,
                "announced": item.status != "deferred",
                "turn_key": turn_key,
                "instance_id": instance_id,
                # One turn's items keep their order when listed newest first.
                "created_at": now + timedelta(microseconds=index),
            }
            for index, item in enumerate(items)
        ]
        # One multi-row statement: all the items or none, in one round trip.
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(self._insert.values(rows))

    async def discard_turn(self, user_id: str, turn_key: str) -> int:
        """Delete the items of the turn `turn_key` (its reply was not recorded); how many."""
        theirs = (inbox_items.c.user_id == user_id) & (inbox_items.c.turn_key == turn_key)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = await conn.execute(delete(inbox_items).where(theirs))
        return int(found.rowcount or 0)

    async def remove(self, user_id: str, instance_id: str, said: str) -> Removal:
        """Delete the one item of `instance_id` whose content holds `said`; none when several
        or none do. The look and the delete are one transaction."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.instance_id == instance_id)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                rows = (await conn.execute(select(inbox_items).where(mine))).mappings().all()
                found = [row for row in rows if holds(row["content"], said)]
                if len(found) != 1:
                    return Removal(said, several=tuple(row["content"] for row in found))
                row = dict(found[0])
                gone = inbox_items.c.item_id == row["item_id"]
                await conn.execute(delete(inbox_items).where(mine & gone))
        return Removal(said, removed=row)

    async def put_back(self, user_id: str, removal: Removal) -> None:
        """Save the removed item again, as it was; an item whose id is saved is skipped."""
        if removal.removed is None or removal.removed.get("user_id") != user_id:
            return
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(self._insert.values([removal.removed]))

    async def contents(self, user_id: str, instance_id: str) -> list[str]:
        """The contents of the user's items of `instance_id`, whatever their status."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.instance_id == instance_id)
        # An item of a turn whose reply is not recorded yet may still be taken back
        # (`turn_writes.take_back`): a list must not leave its own copy out for it.
        recorded = (
            select(replies.c.idempotency_key)
            .where(
                replies.c.user_id == inbox_items.c.user_id,
                replies.c.idempotency_key == inbox_items.c.turn_key,
            )
            .exists()
        )
        mine &= inbox_items.c.turn_key.is_(None) | recorded
        with reachable("inbox"):
            async with self._engine.connect() as conn:
                return list((await conn.scalars(select(inbox_items.c.content).where(mine))).all())

    async def promote_deferred(self, user_id: str) -> int:
        """Deferred items become new ones (the brain dump started); how many did."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.status == "deferred")
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = await conn.execute(update(inbox_items).where(mine).values(status="new"))
        return int(found.rowcount or 0)

    async def promote_deferred_of(self, user_id: str, instance_id: str) -> int:
        """The deferred items of `instance_id` (and those saved before instances were kept)
        become new ones: the instance ended; how many did. They stay unannounced."""
        if raw_postgres.is_postgres(self._engine):
            # Every instance's end asks, and almost never finds one: one statement, its own
            # transaction, not BEGIN, UPDATE, COMMIT through SQLAlchemy (0.13 ms of CPU, not
            # 0.53; once per conversation, about every 20 turns of the chat bench).
            with reachable("inbox"):
                found = await raw_postgres.fetchval(
                    self._engine, "inbox", _PROMOTE_OF, user_id, instance_id
                )
            return int(found)
        of = (inbox_items.c.instance_id == instance_id) | inbox_items.c.instance_id.is_(None)
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.status == "deferred") & of
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = await conn.execute(update(inbox_items).where(mine).values(status="new"))
        return int(found.rowcount or 0)

    async def unannounced(self, user_id: str, instance_id: str | None = None) -> list[Mention]:
        """Items that were deferred and not yet mentioned, promoted if still deferred (the
        brain dump has started), in the order they were deferred; none is marked mentioned.
        With `instance_id`, only that instance's (no inbox step lies ahead of it)."""
        # Asked on every turn with no inbox step ahead, which almost never finds one: a read,
        # not a write transaction that every other turn's writes would queue behind; and
        # before any statement is built (SQLAlchemy's expressions cost CPU too).
        if instance_id is not None and not await self._any_unannounced(user_id, instance_id):
            return []
        mine = (inbox_items.c.user_id == user_id) & ~inbox_items.c.announced
        if instance_id is not None:
            mine &= inbox_items.c.instance_id == instance_id
        promote = (
            update(inbox_items)
            .where(mine)
            .values(
                status=case((inbox_items.c.status == "deferred", "new"), else_=inbox_items.c.status)
            )
            .returning(inbox_items.c.item_id, inbox_items.c.content, inbox_items.c.created_at)
        )
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = (await conn.execute(promote)).all()
        ordered = sorted(found, key=lambda row: (row.created_at, row.item_id))
        return [Mention(item_id=row.item_id, content=row.content) for row in ordered]

    async def _any_unannounced(self, user_id: str, instance_id: str) -> bool:
        """Whether `instance_id` keeps an item the user was not told about.

        On PostgreSQL straight on asyncpg (`raw_postgres`): 0.19 ms of CPU a call, against
        0.44 ms through SQLAlchemy, on every chat turn. Asked each time, never remembered:
        that no deferred item of the instance can still come rests on what this process does
        not see (another replica's turn of it still writing, that replica's profiles)."""
        with reachable("inbox"):
            if raw_postgres.is_postgres(self._engine):
                args = (user_id, instance_id)
                found = await raw_postgres.fetchval(self._engine, "inbox", _ANY_UNANNOUNCED, *args)
                return found is not None
            mine = (inbox_items.c.user_id == user_id) & ~inbox_items.c.announced
            first = select(inbox_items.c.item_id).where(
                mine, inbox_items.c.instance_id == instance_id
            )
            async with self._engine.connect() as conn:
                return await conn.scalar(first.limit(1)) is not None

    async def mark_announced(self, user_id: str, item_ids: list[str]) -> None:
        """These items were told to the user: no later turn mentions them again."""
        if not item_ids:
            return
        told = (inbox_items.c.user_id == user_id) & inbox_items.c.item_id.in_(item_ids)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(update(inbox_items).where(told).values(announced=True))

    async def count(self, user_id: str, status: str | None, before_turn: str | None = None) -> int:
        """Items with `status`; None counts every item that is not deferred. With
        `before_turn`, that turn's own items are left out (see `InboxStore.count`)."""
        if raw_postgres.is_postgres(self._engine):
            query, args = _COUNT_ITEMS[bool(status)], [user_id, status or "deferred"]
            if before_turn is not None:
                query, args = query + _NOT_OF_TURN, [*args, before_turn]
            with reachable("inbox"):
                found = await raw_postgres.fetchval(self._engine, "inbox", query, *args)
            return int(found or 0)
        where = inbox_items.c.user_id == user_id
        where &= inbox_items.c.status == status if status else inbox_items.c.status != "deferred"
        if before_turn is not None:
            where &= inbox_items.c.turn_key.is_distinct_from(before_turn)
        with reachable("inbox"):
            async with self._engine.connect() as conn:
                return int(await conn.scalar(select(func.count()).where(where)) or 0)

    async def list_items(self, user_id: str, limit: int) -> list[InboxItem]:
        """Up to `limit` of the user's items that are not deferred, newest first."""
        query = (
            select(inbox_items)
            .where(inbox_items.c.user_id == user_id, inbox_items.c.status != "deferred")
            .order_by(inbox_items.c.created_at.desc(), inbox_items.c.item_id.desc())
            .limit(limit)
        )
        with reachable("inbox"):
            async with self._engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        return [
            InboxItem(
                item_id=row.item_id,
                content=row.content,
                source=row.source,
                status=row.status,
                # SQLite keeps no time zone; every time written here is UTC.
                created_at=row.created_at.replace(tzinfo=row.created_at.tzinfo or UTC),
            )
            for row in rows
        ]


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
            async with self._engine.connect() as conn:
                found = await conn.scalar(select(memory_facts.c.text).where(fact))
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
            async with self._engine.connect() as conn:
                return int(await conn.scalar(select(func.count()).where(where)) or 0)

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
            async with self._engine.connect() as conn:
                rows = (await conn.execute(query)).all()
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
