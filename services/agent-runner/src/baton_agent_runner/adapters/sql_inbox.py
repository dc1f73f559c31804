"""The inbox store, on the agent-runner's `agent_inbox_items` table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case, delete, func, literal, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from baton_agent_runner.adapters import raw_postgres
from baton_agent_runner.adapters.inbox_statements import (
    ANY_UNANNOUNCED,
    COUNT_ITEMS,
    NOT_OF_TURN,
    OPEN,
    PROMOTE_OF,
    TALLY,
    UNSETTLED_FOR,
    recorded,
    settled,
)
from baton_agent_runner.adapters.sql import Clock, inbox_items, reachable, upsert
from baton_agent_runner.domain.extracted import NewInboxItem, repeats, to_remove, without_part
from baton_agent_runner.service.ports import InboxTally, Mention, Removal
from baton_contracts.agent_api import InboxItem
from baton_eventstore import autocommit
from baton_eventstore.engine import read, write_transaction


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
    ) -> list[NewInboxItem]:
        """Save items with `source="onboarding"`, of the turn `turn_key` of `instance_id`; an
        id already saved is skipped (a retry), and so is a repeat of an open item of the
        instance (`repeats`), looked up in the insert's transaction; the repeats."""
        if not items:
            return []
        # One transaction: the look at what the instance holds, then one multi-row insert of
        # all the other items or none. On SQLite writers take turns (`write_transaction`).
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                held = (
                    []
                    if instance_id is None
                    else await self._open_items(conn, user_id, instance_id, self._now())
                )
                repeated = repeats(items, ((row.item_id, row.content) for row in held))
                kept = [item for item in items if item not in repeated]
                if kept:
                    await conn.execute(
                        self._insert.values(self._rows(user_id, kept, turn_key, instance_id))
                    )
        return repeated

    @staticmethod
    async def _open_items(
        conn: AsyncConnection, user_id: str, instance_id: str, now: datetime
    ) -> list[Any]:
        """The ids and contents of the instance's open items that are settled (`settled`)."""
        query = select(inbox_items.c.item_id, inbox_items.c.content).where(
            inbox_items.c.user_id == user_id,
            inbox_items.c.instance_id == instance_id,
            inbox_items.c.status.in_(OPEN),
            settled(now),
        )
        return list((await conn.execute(query)).all())

    def _rows(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None,
        instance_id: str | None,
    ) -> list[dict[str, Any]]:
        now = self._now()
        return [
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

    async def discard_turn(self, user_id: str, turn_key: str) -> int:
        """Delete the items of the turn `turn_key` (its reply was not recorded); how many."""
        theirs = (inbox_items.c.user_id == user_id) & (inbox_items.c.turn_key == turn_key)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                found = await conn.execute(delete(inbox_items).where(theirs))
        return int(found.rowcount or 0)

    async def remove(self, user_id: str, instance_id: str, said: str) -> Removal:
        """Delete the one item of `instance_id` whose content holds `said` (`to_remove`), or
        only its part that does (`without_part`); none when several or none do. The look and
        the delete are one transaction."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.instance_id == instance_id)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                rows = (await conn.execute(select(inbox_items).where(mine))).mappings().all()
                found = [rows[at] for at in to_remove([r["content"] for r in rows], said)]
                if len(found) != 1:
                    return Removal(said, several=tuple(row["content"] for row in found))
                row = dict(found[0])
                gone = inbox_items.c.item_id == row["item_id"]
                if (kept := without_part(row["content"], said)) is not None:
                    # Only that part goes: the item's other part is another task of the user's.
                    await conn.execute(update(inbox_items).where(mine & gone).values(content=kept))
                    return Removal(said, removed=row, kept=kept)
                await conn.execute(delete(inbox_items).where(mine & gone))
        return Removal(said, removed=row)

    async def put_back(self, user_id: str, removal: Removal) -> None:
        """Save the removed item again, as it was; an item whose id is saved is skipped."""
        if removal.removed is None or removal.removed.get("user_id") != user_id:
            return
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                if removal.kept is not None:  # a part went: the item gets it back
                    item = inbox_items.c.item_id == removal.removed["item_id"]
                    still = inbox_items.c.content == removal.kept
                    content = removal.removed["content"]
                    await conn.execute(
                        update(inbox_items).where(item & still).values(content=content)
                    )
                    return
                await conn.execute(self._insert.values([removal.removed]))

    async def contents(self, user_id: str, instance_id: str) -> list[str]:
        """The contents of the user's items of `instance_id`, whatever their status."""
        mine = (inbox_items.c.user_id == user_id) & (inbox_items.c.instance_id == instance_id)
        # An item of a turn whose reply is not recorded yet may still be taken back
        # (`turn_writes.take_back`): a list must not leave its own copy out for it.
        mine &= inbox_items.c.turn_key.is_(None) | recorded()
        with reachable("inbox"):
            contents = select(inbox_items.c.content).where(mine)
            return list((await read(self._engine, contents)).scalars().all())

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
                    self._engine, "inbox", PROMOTE_OF, user_id, instance_id
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
                found = await raw_postgres.fetchval(
                    self._engine, "inbox", ANY_UNANNOUNCED, *args, repeatable=True
                )
                return found is not None
            mine = (inbox_items.c.user_id == user_id) & ~inbox_items.c.announced
            first = select(inbox_items.c.item_id).where(
                mine, inbox_items.c.instance_id == instance_id
            )
            return (await read(self._engine, first.limit(1))).scalar() is not None

    async def mark_announced(self, user_id: str, item_ids: list[str]) -> None:
        """These items were told to the user: no later turn mentions them again."""
        if not item_ids:
            return
        told = (inbox_items.c.user_id == user_id) & inbox_items.c.item_id.in_(item_ids)
        with reachable("inbox"):
            async with write_transaction(self._engine) as conn:
                await conn.execute(update(inbox_items).where(told).values(announced=True))

    async def tally(self, user_id: str, instance_id: str, before_turn: str) -> InboxTally:
        """The count of `count(user_id, None, before_turn)` and the contents of the instance's
        open items not of that turn, settled (`settled`), as `add` reads them: in one
        statement, the count's row, then the contents."""
        if raw_postgres.is_postgres(self._engine):
            with reachable("inbox"):
                since = self._now() - UNSETTLED_FOR
                args = (user_id, instance_id, before_turn, since)
                rows = await raw_postgres.fetch(
                    self._engine, "inbox", TALLY, *args, repeatable=True
                )
        else:
            others = inbox_items.c.turn_key.is_distinct_from(before_turn)
            counted = select(literal(None).label("content"), func.count().label("n")).where(
                inbox_items.c.user_id == user_id, inbox_items.c.status != "deferred", others
            )
            held = select(inbox_items.c.content, literal(0).label("n")).where(
                inbox_items.c.user_id == user_id,
                inbox_items.c.instance_id == instance_id,
                inbox_items.c.status.in_(OPEN),
                others,
                settled(self._now()),
            )
            with reachable("inbox"):
                rows = list((await read(self._engine, union_all(counted, held))).all())
        count = sum(int(row[1]) for row in rows if row[0] is None)
        return InboxTally(count=count, open=[str(row[0]) for row in rows if row[0] is not None])

    async def count(self, user_id: str, status: str | None, before_turn: str | None = None) -> int:
        """Items with `status`; None counts every item that is not deferred. With
        `before_turn`, that turn's own items are left out (see `InboxStore.count`)."""
        if raw_postgres.is_postgres(self._engine):
            query, args = COUNT_ITEMS[bool(status)], [user_id, status or "deferred"]
            if before_turn is not None:
                query, args = query + NOT_OF_TURN, [*args, before_turn]
            with reachable("inbox"):
                found = await raw_postgres.fetchval(
                    self._engine, "inbox", query, *args, repeatable=True
                )
            return int(found or 0)
        where = inbox_items.c.user_id == user_id
        where &= inbox_items.c.status == status if status else inbox_items.c.status != "deferred"
        if before_turn is not None:
            where &= inbox_items.c.turn_key.is_distinct_from(before_turn)
        with reachable("inbox"):
            return int((await read(self._engine, select(func.count()).where(where))).scalar() or 0)

    async def list_items(self, user_id: str, limit: int) -> list[InboxItem]:
        """Up to `limit` of the user's items that are not deferred, newest first."""
        query = (
            select(inbox_items)
            .where(inbox_items.c.user_id == user_id, inbox_items.c.status != "deferred")
            .order_by(inbox_items.c.created_at.desc(), inbox_items.c.item_id.desc())
            .limit(limit)
        )
        with reachable("inbox"):
            rows = (await read(self._engine, query)).all()
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
