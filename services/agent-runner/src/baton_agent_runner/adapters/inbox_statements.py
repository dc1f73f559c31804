"""What the inbox store (`sql_inbox`) asks its table: the PostgreSQL statements of its hot
paths, sent on the pooled asyncpg connection (`raw_postgres`), and the conditions on an item
that both its SQLAlchemy queries and those statements spell."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from baton_agent_runner.adapters.sql import inbox_items, replies

# The PostgreSQL statements of the hot paths (see `raw_postgres`); JSON is read as text and
# validated straight from it.
COUNT_ITEMS = {
    False: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status <> $2",
    True: "SELECT count(*) FROM agent_inbox_items WHERE user_id = $1 AND status = $2",
}
NOT_OF_TURN = " AND turn_key IS DISTINCT FROM $3"
PROMOTE_OF = (
    "WITH moved AS (UPDATE agent_inbox_items SET status = 'new'"
    " WHERE user_id = $1 AND status = 'deferred' AND (instance_id = $2 OR instance_id IS NULL)"
    " RETURNING 1) SELECT count(*) FROM moved"
)
# The count of `COUNT_ITEMS[False]` without the turn's own items (content NULL), then the
# contents of the instance's open items not of that turn.
TALLY = (
    "SELECT NULL AS content, count(*) AS n FROM agent_inbox_items"
    " WHERE user_id = $1 AND status <> 'deferred' AND turn_key IS DISTINCT FROM $3"
    " UNION ALL SELECT content, 0 FROM agent_inbox_items AS item"
    " WHERE user_id = $1 AND instance_id = $2 AND status IN ('new', 'deferred')"
    " AND turn_key IS DISTINCT FROM $3 AND (turn_key IS NULL OR created_at < $4 OR EXISTS"
    " (SELECT 1 FROM agent_replies WHERE user_id = $1 AND idempotency_key = item.turn_key))"
)
OPEN = ("new", "deferred")
"""The statuses of an item still open: one said again is a repeat (`extracted.repeats`)."""
UNSETTLED_FOR = timedelta(hours=1)
"""How long an item of a turn whose reply is not recorded may still be taken back with it
(`turn_writes.take_back`, within the turn's deadline: seconds). Until then it keeps no repeat
out: a list item left out for it would be lost with it. Older, it is settled (its turn's reply
may also have been pruned from the log since)."""


def settled(now: datetime) -> Any:
    """An item no take-back can remove any more: saved by no turn (a list's), by a turn whose
    reply is recorded, or long enough ago (`UNSETTLED_FOR`)."""
    return (
        inbox_items.c.turn_key.is_(None)
        | (inbox_items.c.created_at < now - UNSETTLED_FOR)
        | recorded()
    )


def recorded() -> Any:
    """The item's turn has its reply recorded."""
    return (
        select(replies.c.idempotency_key)
        .where(
            replies.c.user_id == inbox_items.c.user_id,
            replies.c.idempotency_key == inbox_items.c.turn_key,
        )
        .exists()
    )


ANY_UNANNOUNCED = (
    "SELECT 1 FROM agent_inbox_items"
    " WHERE user_id = $1 AND NOT announced AND instance_id = $2 LIMIT 1"
)
